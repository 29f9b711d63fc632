/**
 * The data vendors' keys and base URLs, built from the provider registry
 * (lib/social/providers/index.ts): each provider that declares a `vendor` gets its own secret
 * (`<stackName>ApiKey`, created empty: an operator puts the key in after the first deploy, so it
 * never appears in a template, a parameter or a shell history), its base URL's parameter, and
 * the output that names the secret. Every function that runs providers reads every vendor's key,
 * whichever SOCIAL_PROVIDER names: a key never read costs nothing (a provider fetches it on its
 * first call). So a new vendor needs its module and its registry entry, and nothing here.
 */
import { CfnOutput, CfnParameter, RemovalPolicy, type Stack, Validations } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { VENDOR_PROVIDERS } from '../lib/social/providers/index.ts';
import { secretArnVariable, type VendorSetup } from '../lib/social/providers/vendor-key.ts';

export interface VendorKey {
  setup: VendorSetup;
  secret: Secret;
  baseUrl: CfnParameter;
}

/** Built in the stack's own scope: the logical ids (`ProviderApiKey`, `TikHubApiKey`, …) stay those deployed stacks have. */
export function vendorKeys(stack: Stack): VendorKey[] {
  return VENDOR_PROVIDERS.map((provider) => {
    const setup = provider.vendor as VendorSetup;
    const secret = new Secret(stack, `${setup.stackName}ApiKey`, {
      description: `${provider.displayName} API key for the social operations provider ${provider.name} (set the value after the first deploy)`,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: "A third-party vendor's API key: no Lambda can rotate it; it is rotated by hand (docs/deployment.md).",
    });
    const baseUrl = new CfnParameter(stack, setup.baseUrlParameter, {
      type: 'String',
      description: `Base URL of the ${provider.displayName} API`,
      default: setup.defaultBaseUrl,
      allowedPattern: '^https://.+',
      constraintDescription: 'must be an https:// URL',
    });
    new CfnOutput(stack, `${setup.stackName}ApiKeySecretArn`, {
      value: secret.secretArn,
      description: `Put the ${provider.displayName} API key here (SocialProvider names ${provider.name}; docs/deployment.md)`,
    });
    return { setup, secret, baseUrl };
  });
}

/** The base URLs, by variable: part of every runner's environment. */
export const vendorBaseUrls = (keys: readonly VendorKey[]): Record<string, string> =>
  Object.fromEntries(keys.map((key) => [key.setup.baseUrlVariable, key.baseUrl.valueAsString]));

/** Lets a runner read every vendor's key: read on each secret, and its ARN in the environment. */
export function grantVendorKeys(keys: readonly VendorKey[], grantee: IGrantable, environment: Record<string, string>): void {
  for (const key of keys) {
    key.secret.grantRead(grantee);
    environment[secretArnVariable(key.setup)] = key.secret.secretArn;
  }
}
