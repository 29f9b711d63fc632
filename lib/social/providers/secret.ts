/**
 * Reading a secret's value: its own module, imported with `await import()` by the one caller
 * (providers/index.ts), so that only a run with the http provider ever evaluates the Secrets
 * Manager client. Named imports, not the dynamic import of the package itself: an `import()` of
 * the package must give its whole namespace, so esbuild would keep every Secrets Manager command
 * (16 KB more, docs/performance.md).
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

export async function secretString(secretId: string): Promise<string | undefined> {
  const { SecretString } = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: secretId }));
  return SecretString;
}
