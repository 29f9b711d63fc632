import { describe, expect, it } from 'vitest';
import { buildHttpEvent } from '../../lib/local/apigw-event.ts';
import { baseUrl, protectedResourceMetadata, resourceMetadataUrl } from '../../lib/mcp/discovery.ts';

const event = (headers: Record<string, string>, requestContext: { domainName?: string; stage?: string } = {}) => {
  const built = buildHttpEvent({ method: 'POST', path: '/mcp', routeKey: 'ANY /mcp', headers });
  return { ...built, requestContext: { ...built.requestContext, ...requestContext } };
};

describe('the base URL a client reached the API at', () => {
  it.each([
    [
      'API Gateway, $default stage',
      event({ host: 'abc.execute-api.eu-west-1.amazonaws.com', 'x-forwarded-proto': 'https' }),
      'https://abc.execute-api.eu-west-1.amazonaws.com',
    ],
    [
      'a named stage',
      event({ 'x-forwarded-proto': 'https' }, { domainName: 'abc.execute-api.eu-west-1.amazonaws.com', stage: 'prod' }),
      'https://abc.execute-api.eu-west-1.amazonaws.com/prod',
    ],
    ['a custom domain', event({ host: 'api.example.com', 'x-forwarded-proto': 'https' }), 'https://api.example.com'],
    ['the local server', event({ host: '127.0.0.1:3000' }), 'http://127.0.0.1:3000'],
    ['localhost', event({ host: 'localhost:3000' }), 'http://localhost:3000'],
    ['another host without a forwarded scheme', event({ host: 'api.example.com' }), 'https://api.example.com'],
    [
      'a forwarded scheme that is neither http nor https',
      event({ host: 'api.example.com', 'x-forwarded-proto': 'gopher' }),
      'https://api.example.com',
    ],
  ])('%s', (_case, given, expected) => {
    expect(baseUrl(given)).toBe(expected);
  });
});

describe('protected resource metadata (RFC 9728)', () => {
  it('names the MCP endpoint as the resource and the service itself as its authorization server', () => {
    const given = event({ host: 'api.example.com', 'x-forwarded-proto': 'https' });

    expect(resourceMetadataUrl(given)).toBe('https://api.example.com/.well-known/oauth-protected-resource');
    expect(protectedResourceMetadata(given)).toEqual({
      resource: 'https://api.example.com/mcp',
      authorization_servers: ['https://api.example.com'],
      bearer_methods_supported: ['header'],
      resource_name: 'Workspace Service',
    });
  });
});
