/**
 * TikHub's stand-in (vendor-stub.ts) for the `tikhub` provider's tests: its Bearer key check, its
 * envelope, the fixtures of test/support/tikhub/fixtures.ts.
 */
import { envelope, TIKHUB_FIXTURES } from './tikhub/fixtures.ts';
import { startVendorStub, type VendorStub } from './vendor-stub.ts';

export const TIKHUB_STUB_KEY = 'tikhub-test-key';

export const startTikHubStub = (): Promise<VendorStub> =>
  startVendorStub({
    refused: (request) =>
      request.headers.authorization === `Bearer ${TIKHUB_STUB_KEY}`
        ? undefined
        : { status: 401, body: { detail: { code: 401, message: 'Invalid token' } } },
    fixtures: TIKHUB_FIXTURES,
    wrap: envelope,
    notFound: { detail: { code: 404, message: 'Not Found' } },
  });
