/**
 * Bundled in place of `@aws-sdk/credential-provider-node` (infra/bundling.ts, `aliases`): the
 * credentials of a deployed function come from its environment, where Lambda puts its execution
 * role's (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), and the SDK's default
 * chain tries that source first anyway. The rest of the chain (SSO, shared files, processes, web
 * identity, container and instance metadata) and the STS, SSO and sign-in clients it loads for
 * them are code no function runs, more than a third of a bare DynamoDB client's bundle (figure:
 * docs/performance.md#bundles-size-and-cold-start). Functions that get their credentials another way (SnapStart,
 * Lambda Managed Instances: from a container endpoint) would need the chain back; the stack
 * uses neither, and test/infra/stack.unit.test.ts says so. Tests, `npm start` and the admin CLI
 * run the sources with the whole chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@aws-sdk/types';

/** The SDK calls this with its client's configuration (a logger among it). */
export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}): AwsCredentialIdentityProvider => {
  const provider = fromEnv(init);
  return async () => {
    try {
      return await provider();
    } catch (error) {
      throw Object.assign(error as Error, {
        message: `${(error as Error).message} This bundle reads AWS credentials from its environment only (infra/stubs/credentials-from-env.ts), as Lambda sets them.`,
      });
    }
  };
};

/** As the real package has them: environment credentials expire only when AWS_CREDENTIAL_EXPIRATION says so. */
export const credentialsWillNeedRefresh = (credentials?: AwsCredentialIdentity): boolean => credentials?.expiration !== undefined;
export const credentialsTreatedAsExpired = (credentials?: AwsCredentialIdentity): boolean =>
  credentials?.expiration !== undefined && credentials.expiration.getTime() - Date.now() < 300_000;
