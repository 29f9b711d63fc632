/**
 * GET /: where a newcomer who opens the base URL starts. A browser is sent to the reference
 * page; anything else gets the entry points as URLs of the deployment it called. Every entry
 * point is a GET route of the route table, and every page route is an entry point (so the
 * console, once it has a route, cannot be left out).
 */
import { describe, expect, it } from 'vitest';
import { ENTRY_POINTS, handler } from '../functions/get-service-index.ts';
import { routes } from '../lib/routes.ts';
import { call } from './support/http.ts';

describe('GET /', () => {
  it('answers curl and fetch (no Accept, or */*) with the entry points of the deployment called, no token needed', async () => {
    const asked: Record<string, string>[] = [{ host: '127.0.0.1:3000' }, { host: '127.0.0.1:3000', accept: '*/*' }];
    for (const headers of asked) {
      const answer = await call(handler, { url: '/', headers });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        name: 'Workspace Service',
        docs: 'http://127.0.0.1:3000/docs',
        console: 'http://127.0.0.1:3000/console',
        openapi: 'http://127.0.0.1:3000/openapi.json',
      });
      expect(answer.headers).toMatchObject({ 'content-type': 'application/json', 'cache-control': 'public, max-age=300', vary: 'Accept' });
      expect(answer.headers['ratelimit-limit']).toBeUndefined();
    }
  });

  it('names a deployed stage by its own host and scheme', async () => {
    const answer = await call(handler, {
      url: '/',
      headers: { host: 'a1b2c3.execute-api.eu-west-1.amazonaws.com', accept: 'application/json' },
    });
    expect(answer.body.docs).toBe('https://a1b2c3.execute-api.eu-west-1.amazonaws.com/docs');
  });

  it('sends a browser to the reference page', async () => {
    const answer = await call(handler, {
      url: '/',
      headers: { host: 'api.example.com', 'x-forwarded-proto': 'https', accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe('https://api.example.com/docs');
    expect(answer.headers.vary).toBe('Accept');
    expect(answer.body).toBeUndefined();
  });

  it('is a public GET route of the route table, and names only paths the table serves', () => {
    const route = routes.find((each) => each.path === '/');
    expect(route).toMatchObject({ name: 'GetServiceIndex', method: 'GET', public: true, tableActions: [] });
    const gets = new Set(routes.filter((each) => each.method === 'GET').map((each) => each.path));
    for (const path of Object.values(ENTRY_POINTS)) expect(gets, path).toContain(path);
  });

  it('names every page a person opens: /docs and /console', () => {
    const pages = routes.filter((each) => each.method === 'GET' && ['/docs', '/console'].includes(each.path)).map((each) => each.path);
    expect(pages).toEqual(['/docs', '/console']);
    expect(Object.values(ENTRY_POINTS)).toEqual(expect.arrayContaining(pages));
  });
});
