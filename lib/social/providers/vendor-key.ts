/**
 * A vendor's API key (docs/deployment.md): from the environment locally; deployed, from its own
 * Secrets Manager secret through the Parameters and Secrets extension, fetched by the first run
 * that needs it. The secret is the key itself, or JSON with one of `fields`. A failed fetch is
 * retried by the next run, not kept.
 */
import { defined } from '../../defined.ts';

export function vendorKeyReader(options: {
  /** The vendor's name in errors ("ScrapeCreators"). */
  vendor: string;
  plain: string | undefined;
  secretArn: string | undefined;
  /** The variable that names the secret, for the error when neither is set. */
  secretArnVariable: string;
  /** The JSON fields that may hold the key, in order. */
  fields: readonly string[];
}): () => Promise<string> {
  const { vendor, plain, secretArn, secretArnVariable, fields } = options;
  let key: Promise<string> | undefined;
  const fetchKey = async (): Promise<string> => {
    if (plain) return plain;
    const secret = await (await import('../../secrets-extension.ts')).secretString(defined(secretArn, secretArnVariable));
    if (!secret) throw new Error(`the ${vendor} API key secret is empty`);
    if (secret.trim().startsWith('{')) {
      const parsed = JSON.parse(secret) as Record<string, unknown>;
      const found = fields.map((field) => parsed[field]).find((value): value is string => typeof value === 'string' && value !== '');
      if (!found) throw new Error(`the ${vendor} API key secret has no api_key field`);
      return found;
    }
    return secret.trim();
  };
  return () => {
    key ??= fetchKey().catch((error: unknown) => {
      key = undefined;
      throw error;
    });
    return key;
  };
}
