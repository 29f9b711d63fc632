/**
 * The `tikhub` provider: TikHub's API (https://api.tikhub.io), the second provider, independent of
 * ScrapeCreators (docs/social-operations.md, "Providers"). GET with query parameters and
 * `Authorization: Bearer <key>`; answers in the envelope `{code, message, data}`. One attempt per
 * run, as for ScrapeCreators: the vendor bills each call, and failover (lib/social/failover.ts),
 * not a blind retry, is what tries again.
 */
import { optional } from '../../../config.ts';
import { type ProviderDescriptor, type ProviderRun, UpstreamError, UpstreamNotFoundError } from '../types.ts';
import { vendorKeyReader } from '../vendor-key.ts';
import { type TikHubMapping, unsupportedInput, x } from './x.ts';

export interface TikHubSettings {
  /** TIKHUB_BASE_URL, without a trailing slash. */
  baseUrl: string;
  apiKey: string | undefined;
  apiKeySecretArn: string | undefined;
}

/** Every mapping, by operation name. */
export const TIKHUB_MAPPINGS: Readonly<Record<string, TikHubMapping>> = { ...x };

export const TIKHUB_OPERATIONS: ReadonlySet<string> = new Set(Object.keys(TIKHUB_MAPPINGS));

/** SOCIAL_PROVIDER=…,tikhub: the X operations ScrapeCreators lacks, and x_profile (both serve it: failover). */
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

const field = (value: unknown, name: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;

export function tikhubProvider(options: { baseUrl: string; apiKey: () => Promise<string> }): ProviderRun {
  return {
    async run({ operation, input, signal }) {
      const mapping = TIKHUB_MAPPINGS[operation.name];
      if (!mapping || !Object.hasOwn(TIKHUB_MAPPINGS, operation.name))
        throw new UpstreamError(`operation ${operation.name} is not served by TikHub`);
      const unsupported = unsupportedInput(operation.name, input);
      if (unsupported) throw new UpstreamError(unsupported, { code: 'unsupported_input' });
      const url = new URL(`${options.baseUrl}${mapping.path}`);
      for (const [name, value] of Object.entries(mapping.params(input))) {
        if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
      }
      const response = await fetch(url, {
        headers: { authorization: `Bearer ${await options.apiKey()}`, accept: 'application/json' },
        signal,
      }).catch((error: unknown) => {
        throw new UpstreamError(
          signal.aborted ? 'the provider call was aborted (timeout)' : `TikHub could not be reached: ${(error as Error).message}`,
        );
      });
      const body = await response.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        throw new UpstreamError(`TikHub answered ${response.status} with a body that is not JSON`, { status: response.status });
      }
      if (response.status === 404)
        throw new UpstreamNotFoundError(`not found on ${operation.network ?? 'the network'}, or not public`, { status: 404 });
      const code = field(parsed, 'code');
      if (!response.ok || (typeof code === 'number' && code !== 200)) {
        const message = field(parsed, 'message') ?? field(field(parsed, 'detail'), 'message');
        throw new UpstreamError(`TikHub answered ${response.status}${typeof message === 'string' ? `: ${message}` : ''}`, {
          status: response.status,
        });
      }
      const data = mapping.response().safeParse(field(parsed, 'data'));
      if (!data.success)
        throw new UpstreamError(
          `TikHub's answer to ${operation.name} is not the shape read: ${data.error.issues[0]?.path.join('.') ?? ''}`,
        );
      return mapping.translate(data.data as never, input);
    },
  };
}
