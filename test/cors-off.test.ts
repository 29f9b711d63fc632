/** CORS is off unless CORS_ALLOWED_ORIGINS names origins: no preflight answer, no CORS headers. */
import { describe, expect, it } from 'vitest';
import { handler as routeNotFound } from '../functions/route-not-found.ts';
import { call } from './support/http.ts';

describe('CORS by default', () => {
  it('is off: a preflight is answered as any other method, and no answer carries CORS headers', async () => {
    expect(process.env.CORS_ALLOWED_ORIGINS).toBeUndefined();
    const answer = await call(routeNotFound, {
      method: 'OPTIONS',
      url: '/social/operations',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
    });

    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET, POST');
    expect(answer.body).toMatchObject({ code: 'method_not_allowed', message: '/social/operations answers GET, POST, not OPTIONS' });
    expect(Object.keys(answer.headers).filter((name) => name.startsWith('access-control-') || name === 'vary')).toEqual([]);
  });
});
