/**
 * RFC 8414 metadata of this service as the authorization server of its own MCP endpoint
 * (DESIGN.md, "Agents that connect with OAuth"): the issuer is the service's base URL, so that a
 * client that knows only `/mcp` finds everything from there.
 */
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
export const AUTHORIZE_PATH = '/oauth/authorize';
export const TOKEN_PATH = '/oauth/token';
export const REGISTRATION_PATH = '/oauth/register';
export const REVOCATION_PATH = '/oauth/revoke';

export function authorizationServerMetadata(base: string) {
  return {
    issuer: base,
    authorization_endpoint: `${base}${AUTHORIZE_PATH}`,
    token_endpoint: `${base}${TOKEN_PATH}`,
    registration_endpoint: `${base}${REGISTRATION_PATH}`,
    revocation_endpoint: `${base}${REVOCATION_PATH}`,
    revocation_endpoint_auth_methods_supported: ['none'],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    client_id_metadata_document_supported: true,
    service_documentation: `${base}/docs`,
  };
}
