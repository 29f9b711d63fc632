import { socialConfig } from '../../config.ts';
import { defined } from '../../defined.ts';
import { httpProvider } from './http.ts';
import { sampleProvider } from './sample.ts';
import type { SocialProvider } from './types.ts';

let apiKey: Promise<string> | undefined;

/**
 * The ScrapeCreators key: from the environment locally; deployed, from Secrets Manager through the
 * Parameters and Secrets extension, fetched once per cold start by the first run that needs it.
 * The secret is the key itself, or JSON with an `api_key` (or `apiKey`) field.
 */
export function scrapeCreatorsKey(): Promise<string> {
  apiKey ??= (async () => {
    const { apiKey: plain, apiKeySecretArn } = socialConfig().scrapeCreators;
    if (plain) return plain;
    // socialConfig() refuses http with neither.
    const secret = await (await import('./secret.ts')).secretString(defined(apiKeySecretArn, 'SCRAPECREATORS_API_KEY_SECRET_ARN'));
    if (!secret) throw new Error('the ScrapeCreators API key secret is empty');
    if (secret.trim().startsWith('{')) {
      const parsed = JSON.parse(secret) as { api_key?: string; apiKey?: string };
      const key = parsed.api_key ?? parsed.apiKey;
      if (!key) throw new Error('the ScrapeCreators API key secret has no api_key field');
      return key;
    }
    return secret.trim();
  })().catch((error: unknown) => {
    apiKey = undefined; // a failed fetch is retried by the next request, not cached
    throw error;
  });
  return apiKey;
}

let provider: SocialProvider | undefined;

/** The configured provider, built once per cold start. */
export function socialProvider(): SocialProvider {
  provider ??=
    socialConfig().provider === 'sample'
      ? sampleProvider
      : httpProvider({ baseUrl: socialConfig().scrapeCreators.baseUrl, apiKey: scrapeCreatorsKey });
  return provider;
}
