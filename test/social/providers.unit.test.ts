/**
 * The registry of data providers (lib/social/providers/index.ts): SOCIAL_PROVIDER picks one
 * descriptor of the table, its settings are checked before any social request is served, and
 * the run path creates its code once. Each case imports the registry afresh, as a cold start does.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OPERATION_NAMES } from '../../lib/social/catalog/names.ts';
import type { ProviderDescriptor, ProviderRequest } from '../../lib/social/providers/types.ts';

const SETTINGS = [
  'SOCIAL_PROVIDER',
  'SOCIAL_PROVIDER_ORDER',
  'SCRAPECREATORS_API_KEY',
  'SCRAPECREATORS_API_KEY_SECRET_ARN',
  'TIKHUB_API_KEY',
  'FACEBOOK_SCRAPER3_API_KEY',
  'SAMPLE_PROVIDER_LATENCY_MS',
] as const;
const saved = Object.fromEntries(SETTINGS.map((name) => [name, process.env[name]]));

/** The registry of a cold start with these settings (the others unset). */
async function coldStart(env: Partial<Record<(typeof SETTINGS)[number], string>>) {
  for (const name of SETTINGS) delete process.env[name];
  Object.assign(process.env, env);
  vi.resetModules();
  return import('../../lib/social/providers/index.ts');
}

afterEach(() => {
  for (const name of SETTINGS) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  vi.resetModules();
});

describe('the provider registry', () => {
  it('names each provider once', async () => {
    const { PROVIDERS } = await coldStart({ SOCIAL_PROVIDER: 'sample' });

    expect(PROVIDERS.map((descriptor) => descriptor.name)).toEqual(['sample', 'sample_backup', 'http', 'tikhub', 'facebook_scraper3']);
  });

  it('serves what the configured provider serves: sample every operation, http the 41 ScrapeCreators maps', async () => {
    const sample = await coldStart({ SOCIAL_PROVIDER: 'sample' });
    expect(OPERATION_NAMES.filter(sample.servedByProvider)).toHaveLength(52);
    expect(sample.providerIdentity()).toEqual({ displayName: 'sample', sampleData: true });

    const http = await coldStart({ SOCIAL_PROVIDER: 'http', SCRAPECREATORS_API_KEY: 'key' });
    expect(OPERATION_NAMES.filter(http.servedByProvider)).toHaveLength(41);
    expect(http.servedByProvider('resolve_mention')).toBe(true);
    expect(http.servedByProvider('x_trends')).toBe(false);
    expect(http.providerIdentity()).toEqual({ displayName: 'ScrapeCreators', sampleData: false });
    expect(http.providersFor('x_trends')).toEqual([]);

    const both = await coldStart({ SOCIAL_PROVIDER: 'http,tikhub', SCRAPECREATORS_API_KEY: 'key', TIKHUB_API_KEY: 'key' });
    // Two providers: all but facebook_search (TikHub has no Facebook API).
    expect(OPERATION_NAMES.filter((name) => !both.servedByProvider(name))).toEqual(['facebook_search']);
    expect(both.providersFor('x_profile').map((provider) => provider.name)).toEqual(['http', 'tikhub']);
    expect(both.providersFor('x_trends').map((provider) => provider.name)).toEqual(['tikhub']);
    expect(both.providerIdentity()).toEqual({ displayName: 'ScrapeCreators + TikHub', sampleData: false });

    // The deployed configuration of three: all 52, each operation by one provider at least.
    const all = await coldStart({
      SOCIAL_PROVIDER: 'http,tikhub,facebook_scraper3',
      SCRAPECREATORS_API_KEY: 'key',
      TIKHUB_API_KEY: 'key',
      FACEBOOK_SCRAPER3_API_KEY: 'key',
    });
    expect(OPERATION_NAMES.filter((name) => !all.servedByProvider(name))).toEqual([]);
    expect(all.providersFor('facebook_search').map((provider) => provider.name)).toEqual(['facebook_scraper3']);
    expect(all.providersFor('facebook_post').map((provider) => provider.name)).toEqual(['http', 'facebook_scraper3']);
    expect(all.providersFor('facebook_post_comments').map((provider) => provider.name)).toEqual(['http', 'facebook_scraper3']);
    expect(all.providerIdentity()).toEqual({ displayName: 'ScrapeCreators + TikHub + Facebook Scraper3', sampleData: false });

    const reordered = await coldStart({
      SOCIAL_PROVIDER: 'http,tikhub',
      SCRAPECREATORS_API_KEY: 'key',
      TIKHUB_API_KEY: 'key',
      SOCIAL_PROVIDER_ORDER: 'x_profile=tikhub,http',
    });
    expect(reordered.providersFor('x_profile').map((provider) => provider.name)).toEqual(['tikhub', 'http']);
  });

  it.each([
    [
      { SOCIAL_PROVIDER: 'ftp' },
      'SOCIAL_PROVIDER must be one or more of "sample", "sample_backup", "http", "tikhub", "facebook_scraper3" (comma-separated), got "ftp"',
    ],
    [{ SOCIAL_PROVIDER: 'sample,sample' }, 'SOCIAL_PROVIDER names a provider twice: "sample,sample"'],
    [{}, 'SOCIAL_PROVIDER is not set'],
    [{ SOCIAL_PROVIDER: 'sample', SAMPLE_PROVIDER_LATENCY_MS: '-5' }, 'SAMPLE_PROVIDER_LATENCY_MS must be an integer >= 0, got "-5"'],
  ])('with %j refuses to list, quote or run: %s', async (env, message) => {
    const registry = await coldStart(env);

    expect(() => registry.servedByProvider('instagram_profile')).toThrow(message);
    expect(() => registry.providersFor('instagram_profile')).toThrow(message);
  });
});

describe("a function without the vendors' keys", () => {
  it('builds the registry from SOCIAL_PROVIDER alone, as the listing, the quote, the status page and job creation are deployed; a run there names what is missing', async () => {
    // What the stack gives those functions: SOCIAL_PROVIDER and the base URLs, no key or secret (infra/vendor-keys.ts).
    const registry = await coldStart({ SOCIAL_PROVIDER: 'http,tikhub,facebook_scraper3' });
    expect(registry.providerIdentity()).toEqual({ displayName: 'ScrapeCreators + TikHub + Facebook Scraper3', sampleData: false });
    expect(OPERATION_NAMES.filter(registry.servedByProvider)).toHaveLength(52);
    expect(registry.providersFor('x_profile').map((provider) => provider.name)).toEqual(['http', 'tikhub']);

    const { CATALOG } = await import('../../lib/social/catalog/index.ts');
    const request = { operation: CATALOG.get('x_trends')!, input: { region: 'US' }, signal: AbortSignal.timeout(1000) };
    for (const [name, message] of [
      ['tikhub', 'SOCIAL_PROVIDER=tikhub needs TIKHUB_API_KEY or TIKHUB_API_KEY_SECRET_ARN'],
      ['http', 'SOCIAL_PROVIDER=http needs SCRAPECREATORS_API_KEY or SCRAPECREATORS_API_KEY_SECRET_ARN'],
      ['facebook_scraper3', 'SOCIAL_PROVIDER=facebook_scraper3 needs FACEBOOK_SCRAPER3_API_KEY or FACEBOOK_SCRAPER3_API_KEY_SECRET_ARN'],
    ] as const) {
      const provider = registry.configuredSocialProviders().find((candidate) => candidate.name === name)!;
      const operation = CATALOG.get(name === 'tikhub' ? 'x_trends' : name === 'http' ? 'x_profile' : 'facebook_search')!;
      const input = name === 'tikhub' ? request.input : name === 'http' ? { handle: 'nasa' } : { query: 'nasa', type: 'posts' };
      await expect(provider.run({ operation, input, signal: request.signal })).rejects.toThrow(message);
    }
  });
});

describe('a descriptor on the run path', () => {
  const request = { input: {} } as ProviderRequest;
  const descriptor = (create: ProviderDescriptor<{ answer: string }>['create']): ProviderDescriptor<{ answer: string }> => ({
    name: 'fake',
    displayName: 'Fake',
    sampleData: false,
    settings: () => ({ answer: 'unused' }),
    serves: (operation) => operation === 'instagram_profile',
    create,
  });

  it('creates its code on the first run only, with its settings', async () => {
    const { asSocialProvider } = await coldStart({ SOCIAL_PROVIDER: 'sample' });
    const create = vi.fn(async (settings: { answer: string }) => ({ run: async () => settings.answer }));
    const provider = asSocialProvider(descriptor(create), { answer: 'from settings' });

    expect(create).not.toHaveBeenCalled();
    expect(provider.serves('instagram_profile')).toBe(true);
    expect(provider.serves('x_trends')).toBe(false);
    expect([await provider.run(request), await provider.run(request)]).toEqual(['from settings', 'from settings']);
    expect(create).toHaveBeenCalledTimes(1);
  });

  it('creates it again on the next run when a creation failed', async () => {
    const { asSocialProvider } = await coldStart({ SOCIAL_PROVIDER: 'sample' });
    const create = vi
      .fn<ProviderDescriptor<{ answer: string }>['create']>()
      .mockRejectedValueOnce(new Error('the key could not be read'))
      .mockResolvedValue({ run: async () => 'ran' });
    const provider = asSocialProvider(descriptor(create), { answer: 'x' });

    await expect(provider.run(request)).rejects.toThrow('the key could not be read');
    expect(await provider.run(request)).toBe('ran');
    expect(create).toHaveBeenCalledTimes(2);
  });
});
