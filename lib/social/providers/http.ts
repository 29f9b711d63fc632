/**
 * The `http` provider: ScrapeCreators' API. GET with query parameters and the `x-api-key`
 * header; one attempt per run (the vendor bills each call, so a blind retry could bill twice:
 * our caller refunds and the client decides whether to retry). The run's AbortSignal enforces
 * the timeout on the socket as well.
 */
import type { Network } from '../../model.ts';
import { parseMention } from '../mention.ts';
import { mappingFor, verificationFor, verifiedAccount } from './scrapecreators/index.ts';
import { SCRAPECREATORS_OPERATIONS } from './scrapecreators/operations.ts';
import { type ProviderDescriptor, type ProviderRequest, type ProviderRun, UpstreamError, UpstreamNotFoundError } from './types.ts';
import { field, vendorGet } from './vendor-call.ts';
import { type VendorSettings, type VendorSetup, vendorSettings } from './vendor-key.ts';

/** ScrapeCreators' key and base URL, as a deployment sets them up (the secret's JSON may name the field `api_key` or `apiKey`). */
const SCRAPECREATORS: VendorSetup = {
  stackName: 'Provider',
  keyVariable: 'SCRAPECREATORS_API_KEY',
  keyFields: ['api_key', 'apiKey'],
  baseUrlVariable: 'SCRAPECREATORS_BASE_URL',
  baseUrlParameter: 'ScrapeCreatorsBaseUrl',
  defaultBaseUrl: 'https://api.scrapecreators.com',
};

/** SOCIAL_PROVIDER=http: ScrapeCreators, for the operations it has an endpoint for and resolve_mention (parsed here, verified with a mapped profile operation). */
export const HTTP_PROVIDER: ProviderDescriptor<VendorSettings> = {
  name: 'http',
  displayName: 'ScrapeCreators',
  sampleData: false,
  vendor: SCRAPECREATORS,
  settings: () => vendorSettings(HTTP_PROVIDER, SCRAPECREATORS),
  serves: (operation) => operation === 'resolve_mention' || SCRAPECREATORS_OPERATIONS.has(operation),
  create: async (settings) => httpProvider(settings),
};

const textField = (value: unknown, name: string): string | undefined => {
  const found = field(value, name);
  return typeof found === 'string' ? found : undefined;
};

/** What the vendor says went wrong: `{success:false, error, errorStatus, message}` or the CLI's `{error:true, code, message}`. */
function describeFailure(status: number, body: unknown): string {
  const message = textField(body, 'message');
  const code = textField(body, 'error') ?? textField(body, 'code');
  return `ScrapeCreators answered ${status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`;
}

export function httpProvider(options: VendorSettings): ProviderRun {
  async function get(operation: string, input: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const mapping = mappingFor(operation);
    if (!mapping) throw new UpstreamError(`operation ${operation} is not served by ScrapeCreators`);
    const { status, ok, body } = await vendorGet(
      'ScrapeCreators',
      `${options.baseUrl}${mapping.path}`,
      mapping.params(input),
      { 'x-api-key': await options.apiKey() },
      signal,
    );
    // A missing account is a 404 (a Facebook one also says accountDoesNotExist): not found, not a failure.
    if (status === 404 || field(field(body, 'data'), 'accountDoesNotExist') === true) {
      throw new UpstreamNotFoundError(`not found on ${operation.split('_')[0]}, or not public`, { status });
    }
    if (!ok || field(body, 'success') === false) {
      throw new UpstreamError(describeFailure(status, body), { status, code: textField(body, 'error') });
    }
    try {
      return mapping.translate(body, input);
    } catch (error) {
      throw new UpstreamError(`ScrapeCreators' response to ${operation} has an unexpected shape: ${(error as Error).message}`);
    }
  }

  async function resolveMention(input: Record<string, unknown>, signal: AbortSignal) {
    const hint = input.network as Network | undefined;
    const parsed = parseMention(String(input.mention), hint);
    const base = {
      input: String(input.mention),
      match: parsed.match,
      status: parsed.match ? 'unverified' : parsed.candidates.length > 0 ? 'ambiguous' : 'not_found',
      id: null as string | null,
      display_name: null as string | null,
      avatar_url: null as string | null,
      verified: null as boolean | null,
      candidates: parsed.candidates,
    };
    const verification = input.verify === true && parsed.match ? verificationFor(parsed.match) : null;
    if (!verification) return base;
    try {
      return { ...base, ...verifiedAccount(await get(verification.operation, verification.input, signal)) };
    } catch (error) {
      if (error instanceof UpstreamNotFoundError) return { ...base, status: 'not_found' };
      throw error;
    }
  }

  return {
    async run({ operation, input, signal }: ProviderRequest) {
      if (operation.name === 'resolve_mention') return resolveMention(input, signal);
      return get(operation.name, input, signal);
    },
  };
}
