/**
 * A secret's value through the AWS Parameters and Secrets Lambda Extension: the stack adds its
 * layer to the functions that read a secret at run time, and the extension, a process beside the
 * function, reads Secrets Manager with the function's role and keeps the value (5 minutes by
 * default). One HTTP GET on localhost, authenticated by the function's session token, in place of
 * the Secrets Manager client, which the functions that read a secret no longer bundle
 * (docs/performance.md#bundles-size-and-cold-start). Imported with `await import()` by its callers
 * (the provider key, lib/social/providers/http.ts; the OAuth sealing key, lib/oauth/sealing-key.ts),
 * so that only a deployed read evaluates it. A leaf: each feature that holds a secret reads it here.
 */

/** The extension's port: its default, or PARAMETERS_SECRETS_EXTENSION_HTTP_PORT (the extension reads the same variable). */
const DEFAULT_PORT = '2773';
/** A call to a process on the same machine: a hung extension must not hang every run waiting for the key. */
const TIMEOUT_MS = 3_000;

export async function secretString(secretId: string, timeoutMs = TIMEOUT_MS): Promise<string | undefined> {
  const token = process.env.AWS_SESSION_TOKEN;
  if (!token) throw new Error('AWS_SESSION_TOKEN is not set: the Parameters and Secrets extension needs it to read the secret');
  const port = process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT || DEFAULT_PORT;
  const url = `http://localhost:${port}/secretsmanager/get?secretId=${encodeURIComponent(secretId)}`;
  const response = await fetch(url, {
    headers: { 'X-Aws-Parameters-Secrets-Token': token },
    signal: AbortSignal.timeout(timeoutMs),
  }).catch((error: unknown) => {
    throw new Error(`the Parameters and Secrets extension could not be reached on port ${port}: ${(error as Error).message}`);
  });
  const text = await response.text();
  // Its errors are plain text (e.g. 400 "not ready to serve traffic", or Secrets Manager's own error).
  if (!response.ok) throw new Error(`the Parameters and Secrets extension answered ${response.status}: ${text.slice(0, 200)}`);
  return (JSON.parse(text) as { SecretString?: string }).SecretString;
}
