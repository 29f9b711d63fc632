/**
 * The provider key, deployed: read from Secrets Manager through the AWS Parameters and Secrets
 * Lambda Extension (an HTTP GET on localhost:<PARAMETERS_SECRETS_EXTENSION_HTTP_PORT>, the
 * function's session token in X-Aws-Parameters-Secrets-Token). A real HTTP server on 127.0.0.1
 * stands in for the extension, and the ScrapeCreators stub checks the key it is sent. Runs go
 * through the real handler against DynamoDB Local.
 *
 * This file sets the http provider with a secret ARN and no plain key before importing the
 * service (the tests' environment has the sample provider).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../lib/local/dynamodb-local.ts';
import { STUB_KEY, startScrapeCreatorsStub } from '../support/scrapecreators-stub.ts';

const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:ProviderApiKey-AbCdEf';
const SESSION_TOKEN = 'IQoJb3JpZ2luX2VjEXAMPLE+session/token==';

/** What the extension stand-in answers: the secret, an error, or nothing at all (a hung extension). */
type Answer = { status: number; body: string } | 'hang';

interface ExtensionStub {
  requests: { url: string; token: string | undefined }[];
  answer: Answer;
  close(): Promise<void>;
}

async function startExtension(port: number): Promise<ExtensionStub> {
  const stub: ExtensionStub = {
    requests: [],
    answer: { status: 200, body: '' },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections()),
  };
  const server: Server = createServer((request: IncomingMessage, response) => {
    stub.requests.push({ url: request.url ?? '', token: request.headers['x-aws-parameters-secrets-token'] as string | undefined });
    // The extension refuses a request without the function's session token.
    if (request.headers['x-aws-parameters-secrets-token'] !== SESSION_TOKEN) {
      response.writeHead(401).end('no valid X-Aws-Parameters-Secrets-Token');
      return;
    }
    if (stub.answer === 'hang') return;
    response.writeHead(stub.answer.status, { 'Content-Type': 'application/json' }).end(stub.answer.body);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return stub;
}

/** GetSecretValue's answer, as the extension passes it on. */
const secretValue = (SecretString: string) =>
  JSON.stringify({ ARN: SECRET_ARN, Name: 'ProviderApiKey', SecretString, VersionId: 'v1', VersionStages: ['AWSCURRENT'] });

const extensionPort = await freePort();
const scrapeCreators = await startScrapeCreatorsStub();
Object.assign(process.env, {
  SOCIAL_PROVIDER: 'http',
  SCRAPECREATORS_BASE_URL: scrapeCreators.baseUrl,
  SCRAPECREATORS_API_KEY_SECRET_ARN: SECRET_ARN,
  AWS_SESSION_TOKEN: SESSION_TOKEN,
  PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(extensionPort),
  PROVIDER_TIMEOUT_MS: '5000',
});
delete process.env.SCRAPECREATORS_API_KEY;
const run = await import('../../functions/run-social-operation.ts');
const { getOrganization } = await import('../../lib/db/organizations.ts');
const { workspace } = await import('../support/fixtures.ts');
const { call, withoutRequestId } = await import('../support/http.ts');
const { tokenFor } = await import('../support/tokens.ts');
const { eventsOf, runUrl } = await import('../support/social.ts');
const { secretString } = await import('../../lib/secrets-extension.ts');

let extension: ExtensionStub | undefined;
afterAll(async () => {
  await extension?.close();
  await scrapeCreators.close();
});

async function runProfile(credits = 5) {
  const { orgId, users } = await workspace({ credits, networks: ['tiktok'] });
  const answer = await call(run.handler, {
    method: 'POST',
    url: runUrl('tiktok_profile', orgId),
    token: tokenFor(users.editor),
    body: { handle: 'nasa' },
  });
  return { orgId, answer };
}

const UPSTREAM_FAILED = {
  code: 'upstream_failed',
  message: 'the social data provider failed; the charge was refunded, retry with backoff',
};

/** The run was charged and refunded: the balance is whole again and both events are there. */
async function expectRefunded(orgId: string, credits: number) {
  expect((await getOrganization(orgId))?.credits).toBe(credits);
  expect((await eventsOf(orgId)).map((event) => event.type).sort()).toEqual([
    'credits.granted',
    'social_operation.charged',
    'social_operation.refunded',
  ]);
}

describe('the provider key through the Parameters and Secrets extension', () => {
  it('extension down (nothing listens on its port): the run fails with 500 upstream_failed and is refunded; the vendor is never called', async () => {
    const { orgId, answer } = await runProfile();

    expect(answer.status).toBe(500);
    expect(withoutRequestId(answer.body)).toEqual(UPSTREAM_FAILED);
    await expectRefunded(orgId, 5);
    expect(scrapeCreators.requests).toHaveLength(0);
  });

  it('extension answering an error (Secrets Manager refused it): 500 upstream_failed, refunded, and the next run asks again', async () => {
    extension = await startExtension(extensionPort);
    extension.answer = { status: 400, body: 'AccessDeniedException: not authorized to perform secretsmanager:GetSecretValue' };

    const first = await runProfile();
    const second = await runProfile();

    expect([first.answer.status, second.answer.status]).toEqual([500, 500]);
    expect(withoutRequestId(first.answer.body)).toEqual(UPSTREAM_FAILED);
    await expectRefunded(first.orgId, 5);
    await expectRefunded(second.orgId, 5);
    // A failed read is not kept: each run asked.
    expect(extension.requests).toHaveLength(2);
  });

  it('reads the key with the session token, sends it to the vendor, and keeps it for the instance: one read for many runs', async () => {
    const ext = extension as ExtensionStub;
    ext.requests.length = 0;
    ext.answer = { status: 200, body: secretValue(JSON.stringify({ api_key: STUB_KEY })) };

    const first = await runProfile();
    const second = await runProfile();

    expect([first.answer.status, second.answer.status]).toEqual([200, 200]);
    expect(first.answer.body).toMatchObject({ network: 'tiktok' });
    expect((await getOrganization(first.orgId))?.credits).toBe(4);
    expect(ext.requests).toEqual([{ url: `/secretsmanager/get?secretId=${encodeURIComponent(SECRET_ARN)}`, token: SESSION_TOKEN }]);
    expect(scrapeCreators.requests.map((request) => request.apiKey)).toEqual([STUB_KEY, STUB_KEY]);
  });
});

describe('secretString (lib/secrets-extension.ts)', () => {
  it('returns the secret as stored: the plain key or its JSON', async () => {
    const ext = extension as ExtensionStub;
    ext.answer = { status: 200, body: secretValue('plain-key') };

    expect(await secretString(SECRET_ARN)).toBe('plain-key');
  });

  it('names what failed: the extension’s status and words, a refused token, an extension that does not answer', async () => {
    const ext = extension as ExtensionStub;
    ext.answer = { status: 400, body: 'not ready to serve traffic, please wait' };
    await expect(secretString(SECRET_ARN)).rejects.toThrow(
      'the Parameters and Secrets extension answered 400: not ready to serve traffic, please wait',
    );

    process.env.AWS_SESSION_TOKEN = 'another-token';
    await expect(secretString(SECRET_ARN)).rejects.toThrow(
      'the Parameters and Secrets extension answered 401: no valid X-Aws-Parameters-Secrets-Token',
    );
    delete process.env.AWS_SESSION_TOKEN;
    await expect(secretString(SECRET_ARN)).rejects.toThrow(
      'AWS_SESSION_TOKEN is not set: the Parameters and Secrets extension needs it to read the secret',
    );
    process.env.AWS_SESSION_TOKEN = SESSION_TOKEN;

    ext.answer = 'hang';
    const startedAt = Date.now();
    // 3 s in the service; 300 ms here, to keep the suite short.
    await expect(secretString(SECRET_ARN, 300)).rejects.toThrow(
      `the Parameters and Secrets extension could not be reached on port ${extensionPort}: The operation was aborted due to timeout`,
    );
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(290);
  });
});
