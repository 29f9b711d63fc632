/**
 * The registry of data providers: SOCIAL_PROVIDER names one of `PROVIDERS`. A new provider is one
 * module that exports a `ProviderDescriptor` (its name, its settings read from the environment,
 * which operations it serves, and its code) and one entry below; nothing else names a provider.
 */
import { socialConfig } from '../../config.ts';
import { HTTP_PROVIDER } from './http.ts';
import { SAMPLE_PROVIDER } from './sample.ts';
import type { ProviderDescriptor, ProviderRun, SocialProvider } from './types.ts';

export const PROVIDERS: readonly ProviderDescriptor[] = [SAMPLE_PROVIDER, HTTP_PROVIDER];

interface Configured {
  descriptor: ProviderDescriptor;
  settings: unknown;
}

let configured: Configured | undefined;

/**
 * The provider SOCIAL_PROVIDER names, with its settings, read once per cold start: an unknown
 * name or a provider's missing setting fails every social request alike (listing, quote, run).
 */
function configuredProvider(): Configured {
  if (!configured) {
    const name = socialConfig().provider;
    const descriptor = PROVIDERS.find((candidate) => candidate.name === name);
    if (!descriptor) {
      throw new Error(`SOCIAL_PROVIDER must be ${PROVIDERS.map((candidate) => `"${candidate.name}"`).join(' or ')}, got "${name}"`);
    }
    configured = { descriptor, settings: descriptor.settings() };
  }
  return configured;
}

/** Whether the configured provider serves the operation. */
export const servedByProvider = (operation: string): boolean => configuredProvider().descriptor.serves(operation);

/** The configured provider as clients see it: its display name, and whether its answers are generated sample data. */
export function providerIdentity(): { displayName: string; sampleData: boolean } {
  const { displayName, sampleData } = configuredProvider().descriptor;
  return { displayName, sampleData };
}

let provider: SocialProvider | undefined;

/** The configured provider, for the run path. */
export function socialProvider(): SocialProvider {
  if (!provider) {
    const { descriptor, settings } = configuredProvider();
    provider = asSocialProvider(descriptor, settings);
  }
  return provider;
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
