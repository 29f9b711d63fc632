/**
 * The OAuth clients of this authorization server: public clients only (no secret), known either by
 * a client ID metadata document (a URL as `client_id`) or by dynamic client registration (RFC 7591).
 */
import { randomUUID } from 'node:crypto';
import { getOAuthClient, putOAuthClient } from '../db/oauth-clients.ts';
import { type ClientDocumentOptions, type ClientMetadata, clientMetadataDocument, isClientIdUrl } from './client-metadata-document.ts';
import { OAuthError } from './errors.ts';
import { checkedRedirectUris } from './redirect-uris.ts';

export type { ClientMetadata };

export const MAX_CLIENT_NAME_LENGTH = 100;

// A public identifier, not a secret: made up like every other id of the service (randomUUID).
const newClientId = (): string => `wsc_${randomUUID().replaceAll('-', '')}`;

const GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);

/** RFC 7591 §2 as this server accepts it: public clients using the code flow with PKCE. */
export async function registerClient(body: unknown, now: Date): Promise<Record<string, unknown>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new OAuthError('invalid_client_metadata', 'the body must be a JSON object');
  const given = body as Record<string, unknown>;
  const redirectUris = checkedRedirectUris(given.redirect_uris, 'invalid_redirect_uri');
  const method = given.token_endpoint_auth_method ?? 'none';
  if (method !== 'none')
    throw new OAuthError('invalid_client_metadata', 'token_endpoint_auth_method must be none: only public clients (PKCE) are registered');
  const grantTypes = given.grant_types ?? ['authorization_code', 'refresh_token'];
  if (!Array.isArray(grantTypes) || grantTypes.some((grant) => !GRANT_TYPES.has(grant as string)))
    throw new OAuthError('invalid_client_metadata', 'grant_types may name only authorization_code and refresh_token');
  const responseTypes = given.response_types ?? ['code'];
  if (!Array.isArray(responseTypes) || responseTypes.some((type) => type !== 'code'))
    throw new OAuthError('invalid_client_metadata', 'response_types may name only code');
  const name = given.client_name;
  if (name !== undefined && (typeof name !== 'string' || name.trim() === '' || name.length > MAX_CLIENT_NAME_LENGTH))
    throw new OAuthError(
      'invalid_client_metadata',
      `client_name must be a non-empty string of at most ${MAX_CLIENT_NAME_LENGTH} characters`,
    );
  const record = {
    client_id: newClientId(),
    client_name: typeof name === 'string' ? name.trim() : null,
    redirect_uris: redirectUris,
    created_at: now.toISOString(),
  };
  await putOAuthClient(record);
  return {
    client_id: record.client_id,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    ...(record.client_name === null ? {} : { client_name: record.client_name }),
    redirect_uris: record.redirect_uris,
    token_endpoint_auth_method: 'none',
    grant_types: grantTypes,
    response_types: ['code'],
  };
}

/** The client a request names, by document or registration; OAuthError `invalid_client` when none. */
export async function resolveClient(clientId: unknown, options: ClientDocumentOptions): Promise<ClientMetadata> {
  if (typeof clientId !== 'string' || clientId === '') throw new OAuthError('invalid_request', 'client_id is required');
  if (isClientIdUrl(clientId)) return clientMetadataDocument(clientId, options);
  const record = await getOAuthClient(clientId);
  if (!record) throw new OAuthError('invalid_client', 'no client is registered with this client_id');
  return { client_id: record.client_id, client_name: record.client_name, redirect_uris: record.redirect_uris };
}
