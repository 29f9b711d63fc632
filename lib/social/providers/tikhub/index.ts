/**
 * The `tikhub` provider: TikHub's API (https://api.tikhub.io), the second provider, independent of
 * ScrapeCreators (docs/social-operations.md, "Providers"). GET with query parameters and
 * `Authorization: Bearer <key>`; answers in the envelope `{code, message, data}`. One attempt per
 * run, as for ScrapeCreators: the vendor bills each call, and failover (lib/social/failover.ts),
 * not a blind retry, is what tries again.
 */
import { type ProviderDescriptor, type ProviderRun, UpstreamError, UpstreamNotFoundError } from '../types.ts';
import { field, readAnswer, vendorGet, vendorRefused } from '../vendor-call.ts';
import { type VendorSettings, type VendorSetup, vendorSettings } from '../vendor-key.ts';
import { instagram } from './instagram.ts';
import { linkedin } from './linkedin.ts';
import type { TikHubGet, TikHubMapping } from './mapping.ts';
import { tiktok } from './tiktok.ts';
import { x } from './x.ts';
import { youtube } from './youtube.ts';

/** Every mapping, by operation name. */
export const TIKHUB_MAPPINGS: Readonly<Record<string, TikHubMapping>> = { ...instagram, ...tiktok, ...linkedin, ...youtube, ...x };

export const TIKHUB_OPERATIONS: ReadonlySet<string> = new Set(Object.keys(TIKHUB_MAPPINGS));

/** TikHub's key and base URL, as a deployment sets them up. */
const TIKHUB: VendorSetup = {
  stackName: 'TikHub',
  keyVariable: 'TIKHUB_API_KEY',
  keyFields: ['api_key'],
  baseUrlVariable: 'TIKHUB_BASE_URL',
  baseUrlParameter: 'TikHubBaseUrl',
  defaultBaseUrl: 'https://api.tikhub.io',
};

/**
 * SOCIAL_PROVIDER=…,tikhub: the operations ScrapeCreators lacks but facebook_search (TikHub has no
 * Facebook API), and x_profile (both serve it: failover). docs/social-operations.md, "TikHub".
 */
export const TIKHUB_PROVIDER: ProviderDescriptor<VendorSettings> = {
  name: 'tikhub',
  displayName: 'TikHub',
  sampleData: false,
  vendor: TIKHUB,
  checkInputs: {
    linkedin_search_people: { query: 'data engineer', title: 'engineer' },
    x_user_connections: { handle: 'nasa', kind: 'followers' },
    x_tweet_engagers: { url: 'https://x.com/nasa/status/1834567890123456789', type: 'reposters' },
  },
  settings: () => vendorSettings(TIKHUB_PROVIDER, TIKHUB),
  serves: (operation) => TIKHUB_OPERATIONS.has(operation),
  create: async (settings) => tikhubProvider(settings),
};

export function tikhubProvider(options: VendorSettings): ProviderRun {
  return {
    async run({ operation, input, signal }) {
      const mapping = TIKHUB_MAPPINGS[operation.name];
      if (!mapping || !Object.hasOwn(TIKHUB_MAPPINGS, operation.name))
        throw new UpstreamError(`operation ${operation.name} is not served by TikHub`);
      const unsupported = mapping.unsupported?.(input);
      if (unsupported) throw new UpstreamError(unsupported, { code: 'unsupported_input' });
      const get: TikHubGet = async (path, params, response) => {
        const { status, ok, body } = await vendorGet(
          'TikHub',
          `${options.baseUrl}${path}`,
          params,
          { authorization: `Bearer ${await options.apiKey()}` },
          signal,
        );
        if (status === 404)
          throw new UpstreamNotFoundError(`not found on ${operation.network ?? 'the network'}, or not public`, { status: 404 });
        const code = field(body, 'code');
        if (!ok || (typeof code === 'number' && code !== 200)) {
          throw vendorRefused('TikHub', status, field(body, 'message') ?? field(field(body, 'detail'), 'message'));
        }
        return readAnswer('TikHub', operation.name, response, field(body, 'data')) as never;
      };
      return mapping.run(get, input);
    },
  };
}
