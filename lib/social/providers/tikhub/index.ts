/**
 * The `tikhub` provider: TikHub's API (https://api.tikhub.io), the second provider, independent of
 * ScrapeCreators (docs/social-operations.md, "Providers"). GET with query parameters and
 * `Authorization: Bearer <key>`; answers in the envelope `{code, message, data}`. One attempt per
 * run, as for ScrapeCreators: the vendor bills each call, and failover (lib/social/failover.ts),
 * not a blind retry, is what tries again.
 */
import { optional } from '../../../config.ts';
import { type ProviderDescriptor, type ProviderRun, UpstreamError, UpstreamNotFoundError } from '../types.ts';
import { field, vendorGet } from '../vendor-call.ts';
import { vendorKeyReader } from '../vendor-key.ts';
import { instagram } from './instagram.ts';
import { linkedin } from './linkedin.ts';
import type { TikHubGet, TikHubMapping } from './mapping.ts';
import { tiktok } from './tiktok.ts';
import { x } from './x.ts';
import { youtube } from './youtube.ts';

export interface TikHubSettings {
  /** TIKHUB_BASE_URL, without a trailing slash. */
  baseUrl: string;
  apiKey: string | undefined;
  apiKeySecretArn: string | undefined;
}

/** Every mapping, by operation name. */
export const TIKHUB_MAPPINGS: Readonly<Record<string, TikHubMapping>> = { ...instagram, ...tiktok, ...linkedin, ...youtube, ...x };

export const TIKHUB_OPERATIONS: ReadonlySet<string> = new Set(Object.keys(TIKHUB_MAPPINGS));

/**
 * SOCIAL_PROVIDER=…,tikhub: the operations ScrapeCreators lacks but facebook_search (TikHub has no
 * Facebook API), and x_profile (both serve it: failover). docs/social-operations.md, "TikHub".
 */
export const TIKHUB_PROVIDER: ProviderDescriptor<TikHubSettings> = {
  name: 'tikhub',
  displayName: 'TikHub',
  sampleData: false,
  settings() {
    const apiKey = optional('TIKHUB_API_KEY');
    const apiKeySecretArn = optional('TIKHUB_API_KEY_SECRET_ARN');
    if (!apiKey && !apiKeySecretArn) throw new Error('SOCIAL_PROVIDER=tikhub needs TIKHUB_API_KEY or TIKHUB_API_KEY_SECRET_ARN');
    return { baseUrl: (optional('TIKHUB_BASE_URL') ?? 'https://api.tikhub.io').replace(/\/+$/, ''), apiKey, apiKeySecretArn };
  },
  serves: (operation) => TIKHUB_OPERATIONS.has(operation),
  create: async (settings) => tikhubProvider({ baseUrl: settings.baseUrl, apiKey: keyReader(settings) }),
};

/** The TikHub key: its own secret (the key itself, or JSON with `api_key`). */
const keyReader = ({ apiKey, apiKeySecretArn }: TikHubSettings): (() => Promise<string>) =>
  vendorKeyReader({
    vendor: 'TikHub',
    plain: apiKey,
    secretArn: apiKeySecretArn,
    secretArnVariable: 'TIKHUB_API_KEY_SECRET_ARN',
    fields: ['api_key'],
  });

export function tikhubProvider(options: { baseUrl: string; apiKey: () => Promise<string> }): ProviderRun {
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
          const message = field(body, 'message') ?? field(field(body, 'detail'), 'message');
          throw new UpstreamError(`TikHub answered ${status}${typeof message === 'string' ? `: ${message}` : ''}`, { status });
        }
        const data = response.safeParse(field(body, 'data'));
        if (!data.success)
          throw new UpstreamError(
            `TikHub's answer to ${operation.name} is not the shape read: ${data.error.issues[0]?.path.join('.') ?? ''}`,
          );
        return data.data as never;
      };
      return mapping.run(get, input);
    },
  };
}
