/**
 * Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document, the MCP
 * authorization spec of 2025-11-25): a client whose `client_id` is an https URL publishes its
 * name and redirect URIs there. Fetched as webhooks are sent (lib/webhooks/addresses.ts): https
 * only (http on loopback where the deployment allows it), a host that resolves only to public
 * addresses and the connection made to the very address checked, no redirect followed, at most
 * 64 KB read within a short deadline. Kept as long as its Cache-Control allows (bounded), so
 * that an authorization and its token exchange fetch it once.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkWebhookUrl, pinnedLookup } from '../webhooks/addresses.ts';
import { OAuthError } from './errors.ts';
import { checkedRedirectUris } from './redirect-uris.ts';

export const MAX_DOCUMENT_BYTES = 64 * 1024;
export const FETCH_TIMEOUT_MS = 5000;
/** What is cached at most, and for how long at most (a document without max-age: not kept). */
const CACHE_ENTRIES = 500;
const MAX_CACHE_SECONDS = 24 * 3600;

export interface ClientMetadata {
  client_id: string;
  client_name: string | null;
  redirect_uris: string[];
}

/** Whether a `client_id` names a metadata document (rather than a registered client). */
export const isClientIdUrl = (clientId: string): boolean => /^https?:\/\//i.test(clientId);

const cache = new Map<string, { metadata: ClientMetadata; until: number }>();

/** Empties the cache (tests that serve changing documents). */
export const forgetClientMetadataDocuments = (): void => cache.clear();

const refused = (why: string) => new OAuthError('invalid_client', `the client metadata document ${why}`);

export interface ClientDocumentOptions {
  allowLoopback: boolean;
  timeoutMs?: number;
  now?: () => number;
  /** Called before the document is fetched (not when it is cached): a throw refuses the fetch (the rate limit per address). */
  beforeFetch?: () => Promise<void>;
}

/** The document at `clientId`, validated; throws OAuthError `invalid_client` with why. */
export async function clientMetadataDocument(clientId: string, options: ClientDocumentOptions): Promise<ClientMetadata> {
  const now = options.now ?? Date.now;
  const cached = cache.get(clientId);
  if (cached && cached.until > now()) return cached.metadata;
  const url = new URL(clientId);
  if (url.pathname === '/' || url.pathname === '') throw refused('URL must have a path');
  if (url.search !== '' || url.hash !== '') throw refused('URL must have no query or fragment');
  // Only a fetch costs anything (an outgoing request to a URL of the caller's choosing): counted then.
  await options.beforeFetch?.();
  const { body, maxAgeSeconds } = await fetchDocument(clientId, options.allowLoopback, options.timeoutMs ?? FETCH_TIMEOUT_MS);
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    throw refused('is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw refused('is not a JSON object');
  if (parsed.client_id !== clientId) throw refused('names another client_id than its own URL');
  const method = parsed.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none')
    throw refused('asks for a token_endpoint_auth_method other than none (public clients only)');
  let redirectUris: string[];
  try {
    redirectUris = checkedRedirectUris(parsed.redirect_uris, 'invalid_client_metadata');
  } catch (error) {
    throw refused(`has unusable redirect_uris: ${(error as Error).message}`);
  }
  const name = typeof parsed.client_name === 'string' ? parsed.client_name.slice(0, 100) : null;
  const metadata = { client_id: clientId, client_name: name, redirect_uris: redirectUris };
  if (maxAgeSeconds > 0) {
    if (cache.size >= CACHE_ENTRIES) cache.clear();
    cache.set(clientId, { metadata, until: now() + Math.min(maxAgeSeconds, MAX_CACHE_SECONDS) * 1000 });
  }
  return metadata;
}

/** max-age of a Cache-Control header (0 when absent, or no-store / no-cache / private says not to keep it). */
function maxAgeOf(header: string | undefined): number {
  if (!header || /no-store|no-cache/i.test(header)) return 0;
  const match = /max-age=(\d+)/i.exec(header);
  return match ? Number(match[1]) : 0;
}

async function fetchDocument(
  clientId: string,
  allowLoopback: boolean,
  timeoutMs: number,
): Promise<{ body: string; maxAgeSeconds: number }> {
  const deadline = AbortSignal.timeout(timeoutMs);
  let checked: Awaited<ReturnType<typeof checkWebhookUrl>>;
  try {
    checked = await checkWebhookUrl(clientId, allowLoopback);
  } catch (error) {
    throw refused(`URL ${(error as Error).message}`);
  }
  const send = checked.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (result: { body: string; maxAgeSeconds: number } | Error) => {
      if (done) return;
      done = true;
      outgoing.destroy();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const onDeadline = () => finish(refused(`did not arrive within ${timeoutMs} ms`));
    deadline.addEventListener('abort', onDeadline, { once: true });
    const outgoing = send(
      checked.url,
      {
        method: 'GET',
        agent: false,
        headers: { accept: 'application/json', 'user-agent': 'workspace-service-oauth' },
        lookup: pinnedLookup(checked.address, checked.family) as never,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400) return finish(refused(`answered a redirect (${status}), which is not followed`));
        if (status !== 200) return finish(refused(`answered status ${status}`));
        const declared = Number(response.headers['content-length'] ?? 0);
        if (declared > MAX_DOCUMENT_BYTES) return finish(refused(`is larger than ${MAX_DOCUMENT_BYTES} bytes`));
        const chunks: Buffer[] = [];
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > MAX_DOCUMENT_BYTES) return finish(refused(`is larger than ${MAX_DOCUMENT_BYTES} bytes`));
          chunks.push(chunk);
        });
        response.on('end', () =>
          finish({ body: Buffer.concat(chunks).toString('utf8'), maxAgeSeconds: maxAgeOf(response.headers['cache-control']) }),
        );
        response.on('error', (error) => finish(refused(`could not be read: ${error.message}`)));
      },
    );
    outgoing.on('error', (error) => finish(refused(`could not be fetched: ${error.message}`)));
    outgoing.on('close', () => deadline.removeEventListener('abort', onDeadline));
    outgoing.end();
  });
}
