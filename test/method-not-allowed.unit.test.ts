/**
 * A path of the route table asked with a method no route names for it: API Gateway hands it to
 * the `$default` function, which answers 405 `method_not_allowed` with `Allow` (RFC 9110
 * §15.5.6), before authentication; a path no route names stays 404 `route_not_found`. Every
 * route of the table, every other method.
 */
import { describe, expect, it } from 'vitest';
import { handler as routeNotFound } from '../functions/route-not-found.ts';
import { routePattern, routes } from '../lib/routes.ts';
import { call, withoutRequestId } from './support/http.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** A concrete path of a template: each parameter given a plausible value. */
const concrete = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'organization_id' ? 'org_a' : `${name}_1`));

/** What the route table answers on a path, read from the table itself (the function reads the route keys). */
const methodsOf = (path: string) =>
  ORDER.filter((method) => routes.some((route) => route.method === method && routePattern(route.path).test(path)));

// Every path of the table but `$default` and the `ANY` routes (/mcp and /oauth/authorize answer every method themselves).
const cases = routes
  .filter((route) => route.path !== '$default' && route.method !== 'ANY')
  .flatMap((route) => {
    const path = concrete(route.path);
    const allowed = methodsOf(path);
    return METHODS.filter((method) => !allowed.includes(method)).map((method) => [route.name, method, path, allowed] as const);
  });

describe('405 method_not_allowed on a known path', () => {
  it('covers every route of the table', () => {
    expect(new Set(cases.map(([name]) => name)).size).toBe(routes.length - 3);
  });

  it.each(cases)('%s: %s %s answers 405 with Allow: %s', async (_name, method, path, allowed) => {
    const answer = await call(routeNotFound, { method, url: `${path}?organization_id=org_a` });

    expect({ status: answer.status, allow: answer.headers.allow, body: withoutRequestId(answer.body) }).toEqual({
      status: 405,
      allow: allowed.join(', '),
      body: { code: 'method_not_allowed', message: `${path} answers ${allowed.join(', ')}, not ${method}` },
    });
    expect(answer.body.request_id).toBe(answer.headers['x-request-id']);
  });

  it('lists every method of a path that several routes share, in one order', async () => {
    const members = await call(routeNotFound, { method: 'POST', url: '/organizations/org_a/members/u_1' });
    const organization = await call(routeNotFound, { method: 'DELETE', url: '/organizations/org_a' });
    const operations = await call(routeNotFound, { method: 'DELETE', url: '/social/operations' });

    expect([members.headers.allow, organization.headers.allow, operations.headers.allow]).toEqual([
      'PUT, DELETE',
      'GET, PATCH',
      'GET, POST',
    ]);
  });

  it('answers without a token, and a bad token changes nothing', async () => {
    const answer = await call(routeNotFound, { method: 'DELETE', url: '/me', headers: { authorization: 'Bearer nonsense' } });

    expect(answer.status).toBe(405);
    expect(answer.headers['www-authenticate']).toBeUndefined();
  });
});

describe('404 route_not_found elsewhere', () => {
  it.each([
    ['GET', '/nowhere'],
    ['DELETE', '/social/x_profile/quote/extra'],
    ['GET', '/organizations/org_a/members/u_1/extra'],
    ['POST', '/mcp/extra'],
  ])('%s %s', async (method, path) => {
    const answer = await call(routeNotFound, { method, url: path });

    expect({ status: answer.status, allow: answer.headers.allow, body: withoutRequestId(answer.body) }).toEqual({
      status: 404,
      allow: undefined,
      body: { code: 'route_not_found', message: `no route for ${method} ${path}` },
    });
  });
});
