/**
 * The registry of data providers: SOCIAL_PROVIDER names one or more of `PROVIDERS`, in order
 * (`http,tikhub,facebook_scraper3`). Each operation is served by the configured providers that serve it, in that
 * order (SOCIAL_PROVIDER_ORDER may reorder one operation's): the first is its primary, the others
 * its failover (lib/social/failover.ts). A new provider is one module that exports a
 * `ProviderDescriptor` (its name, its settings read from the environment, which operations it
 * serves, its code, and a vendor's key and base URL, from which infra/stack.ts builds its secret
 * and parameter) and one entry below; nothing else names a provider.
 */
import { optional, socialConfig } from '../../config.ts';
import { FACEBOOK_SCRAPER3_PROVIDER } from './facebook-scraper3.ts';
import { HTTP_PROVIDER } from './http.ts';
import { SAMPLE_BACKUP_PROVIDER, SAMPLE_PROVIDER } from './sample.ts';
import { TIKHUB_PROVIDER } from './tikhub/index.ts';
import type { ProviderDescriptor, ProviderRun, SocialProvider } from './types.ts';

export const PROVIDERS: readonly ProviderDescriptor[] = [
  SAMPLE_PROVIDER,
  SAMPLE_BACKUP_PROVIDER,
  HTTP_PROVIDER,
  TIKHUB_PROVIDER,
  FACEBOOK_SCRAPER3_PROVIDER,
];

/** The providers that call a data vendor (they declare its key and base URL), in the registry's order. */
export const VENDOR_PROVIDERS: readonly ProviderDescriptor[] = PROVIDERS.filter((provider) => provider.vendor !== undefined);

interface Configured {
  descriptors: ProviderDescriptor[];
  providers: SocialProvider[];
  /** An operation's own order (SOCIAL_PROVIDER_ORDER), by operation name. */
  orders: Map<string, string[]>;
}

let configured: Configured | undefined;

/** `x_profile=tikhub,http;x_post=tikhub,http`: per operation, the order of its providers. */
function parseOrders(text: string | undefined, names: readonly string[]): Map<string, string[]> {
  const orders = new Map<string, string[]>();
  for (const entry of (text ?? '').split(/[;\s]+/).filter(Boolean)) {
    const [operation, list] = entry.split('=');
    const order = (list ?? '').split(',').filter(Boolean);
    if (!operation || order.length === 0 || order.some((name) => !names.includes(name)))
      throw new Error(`SOCIAL_PROVIDER_ORDER entries must be <operation>=<provider>[,<provider>] of SOCIAL_PROVIDER's, got "${entry}"`);
    orders.set(operation, order);
  }
  return orders;
}

/**
 * The providers SOCIAL_PROVIDER names, with their settings, read once per cold start: an unknown
 * name, a name given twice or a provider's missing setting fails every social request alike
 * (listing, quote, run).
 */
function configuredProviders(): Configured {
  if (!configured) {
    const names = socialConfig()
      .provider.split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    const descriptors = names.map((name) => {
      const descriptor = PROVIDERS.find((candidate) => candidate.name === name);
      if (!descriptor) {
        throw new Error(
          `SOCIAL_PROVIDER must be one or more of ${PROVIDERS.map((candidate) => `"${candidate.name}"`).join(', ')} (comma-separated), got "${name}"`,
        );
      }
      return descriptor;
    });
    if (descriptors.length === 0) throw new Error('SOCIAL_PROVIDER names no provider');
    if (new Set(names).size !== names.length) throw new Error(`SOCIAL_PROVIDER names a provider twice: "${names.join(',')}"`);
    const providers = descriptors.map((descriptor) => asSocialProvider(descriptor, descriptor.settings()));
    configured = { descriptors, providers, orders: parseOrders(optional('SOCIAL_PROVIDER_ORDER'), names) };
  }
  return configured;
}

/** The providers of an operation, primary first: empty when no configured provider serves it. */
export function providersFor(operation: string): SocialProvider[] {
  const { providers, orders } = configuredProviders();
  const serving = providers.filter((provider) => provider.serves(operation));
  const order = orders.get(operation);
  if (!order) return serving;
  const rank = (provider: SocialProvider) => {
    const at = order.indexOf(provider.name);
    return at === -1 ? order.length + providers.indexOf(provider) : at;
  };
  return [...serving].sort((a, b) => rank(a) - rank(b));
}

/** Every configured provider, in SOCIAL_PROVIDER's order. */
export const configuredSocialProviders = (): readonly SocialProvider[] => configuredProviders().providers;

/** Whether a configured provider serves the operation. */
export const servedByProvider = (operation: string): boolean =>
  configuredProviders().providers.some((provider) => provider.serves(operation));

/**
 * The configured providers as clients see them: their display names, joined (`ScrapeCreators +
 * TikHub`), and whether answers are generated sample data (every provider is a sample one).
 */
export function providerIdentity(): { displayName: string; sampleData: boolean } {
  const { providers } = configuredProviders();
  return {
    displayName: providers.map((provider) => provider.displayName).join(' + '),
    sampleData: providers.every((provider) => provider.sampleData),
  };
}

/** The configured providers as one, for the checks that ask whether any serves an operation (the 403 names them all). */
export function socialProvider(): Pick<SocialProvider, 'displayName' | 'sampleData' | 'serves'> {
  const { displayName, sampleData } = providerIdentity();
  return { displayName, sampleData, serves: servedByProvider };
}

/** A descriptor as the run path uses it: its code is created by the first run (and again after a failed creation). */
export function asSocialProvider<Settings>(descriptor: ProviderDescriptor<Settings>, settings: Settings): SocialProvider {
  let created: Promise<ProviderRun> | undefined;
  const code = (): Promise<ProviderRun> => {
    created ??= descriptor.create(settings).catch((error: unknown) => {
      created = undefined;
      throw error;
    });
    return created;
  };
  return {
    name: descriptor.name,
    displayName: descriptor.displayName,
    sampleData: descriptor.sampleData,
    serves: (operation) => descriptor.serves(operation),
    run: async (request) => (await code()).run(request),
  };
}
