/** CORS is off unless CORS_ALLOWED_ORIGINS names origins: no preflight answer, no CORS headers. */
import { describe, expect, it } from 'vitest';
import { handler as routeNotFound } from '../functions/route-not-found.ts';
import { call } from './support/http.ts';

describe('CORS by default', () => {
  it('is off: a preflight is an unknown route, and no answer carries CORS headers', async () => {
    expect(process.env.CORS_ALLOWED_ORIGINS).toBeUndefined();
    const answer = await call(routeNotFound, {
      method: 'OPTIONS',
      url: '/social/operations',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
    });

    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ code: 'route_not_found', message: 'no route for OPTIONS /social/operations' });
    expect(Object.keys(answer.headers).filter((name) => name.startsWith('access-control-') || name === 'vary')).toEqual([]);
  });
});
