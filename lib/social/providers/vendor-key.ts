/**
 * What a data vendor's provider needs from a deployment, in one place: its API key and its base
 * URL. A provider module declares them as a `VendorSetup`; its settings are read from the
 * environment by `vendorSettings`, and infra/stack.ts builds the key's secret, the base URL's
 * parameter and every runner's grants and variables from the same declaration. So a new vendor
 * is its module and its entry in the registry (index.ts), and nothing in infra/.
 *
 * The key (docs/deployment.md): from the environment locally; deployed, from its own Secrets
 * Manager secret through the Parameters and Secrets extension, fetched by the first run that
 * needs it. The secret is the key itself, or JSON with one of `keyFields`. A failed fetch is
 * retried by the next run, not kept.
 */
import { optional } from '../../config.ts';
import { defined } from '../../defined.ts';

export interface VendorSetup {
  /** Its key's secret in the stack is `<stackName>ApiKey`, and the output naming it `<stackName>ApiKeySecretArn`. */
  readonly stackName: string;
  /** The variable of the key itself (local use); deployed, `<keyVariable>_SECRET_ARN` names its secret. */
  readonly keyVariable: string;
  /** The JSON fields of the secret that may hold the key, in order. */
  readonly keyFields: readonly string[];
  readonly baseUrlVariable: string;
  /** The stack parameter that sets the base URL. */
  readonly baseUrlParameter: string;
  readonly defaultBaseUrl: string;
}

/** What a vendor's provider is built from: its base URL (no trailing slash) and its key, fetched once. */
export interface VendorSettings {
  baseUrl: string;
  apiKey: () => Promise<string>;
}

export const secretArnVariable = (setup: VendorSetup): string => `${setup.keyVariable}_SECRET_ARN`;

/**
 * The vendor's settings from the environment, read once per cold start. The key is read by the
 * first call that needs it, and only there: the functions that list, quote or describe the
 * operations (and create jobs) ask the registry which provider serves what, and have no key to
 * read (infra/vendor-keys.ts grants the keys to the functions that run providers alone). Neither
 * the key nor its secret set fails that first call, naming both.
 */
export function vendorSettings(provider: { name: string; displayName: string }, setup: VendorSetup): VendorSettings {
  return {
    baseUrl: (optional(setup.baseUrlVariable) ?? setup.defaultBaseUrl).replace(/\/+$/, ''),
    apiKey: keyReader(provider, setup),
  };
}

function keyReader(provider: { name: string; displayName: string }, setup: VendorSetup): () => Promise<string> {
  const vendor = provider.displayName;
  const plain = optional(setup.keyVariable);
  const secretArn = optional(secretArnVariable(setup));
  let key: Promise<string> | undefined;
  const fetchKey = async (): Promise<string> => {
    if (!plain && !secretArn) throw new Error(`SOCIAL_PROVIDER=${provider.name} needs ${setup.keyVariable} or ${secretArnVariable(setup)}`);
    if (plain) return plain;
    const secret = await (await import('../../secrets-extension.ts')).secretString(defined(secretArn, secretArnVariable(setup)));
    if (!secret) throw new Error(`the ${vendor} API key secret is empty`);
    if (secret.trim().startsWith('{')) {
      const parsed = JSON.parse(secret) as Record<string, unknown>;
      const found = setup.keyFields
        .map((field) => parsed[field])
        .find((value): value is string => typeof value === 'string' && value !== '');
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
