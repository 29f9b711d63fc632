/**
 * Signing in at the consent screen through the stack's hosted UI (lib/oauth/hosted-sign-in.ts):
 * the local server's real handlers on 127.0.0.1 with CONSOLE_HOSTED_UI_URL pointing at a stand-in
 * of Cognito's hosted UI, also on 127.0.0.1, which checks PKCE as Cognito does and issues real
 * tokens of the tests' issuer (signed by the key its JWKS serves). The browser is played by fetch,
 * carrying the cookie by hand.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { workspace } from '../support/fixtures.ts';
import { TEST_AUDIENCE, tokenFor } from '../support/tokens.ts';

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/** The stand-in of the hosted UI: who signs in next, the codes it issued (single use), and what it was asked. */
let signsIn = '';
const issued = new Map<string, { challenge: string; redirectUri: string; clientId: string; user: string }>();
const hostedUi = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://stand-in');
  if (request.method === 'GET' && url.pathname === '/oauth2/authorize') {
    const code = randomBytes(16).toString('hex');
    const redirectUri = url.searchParams.get('redirect_uri') ?? '';
    issued.set(code, {
      challenge: url.searchParams.get('code_challenge_method') === 'S256' ? (url.searchParams.get('code_challenge') ?? '') : '',
      redirectUri,
      clientId: url.searchParams.get('client_id') ?? '',
      user: signsIn,
    });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    back.searchParams.set('state', url.searchParams.get('state') ?? '');
    response.writeHead(302, { location: back.toString() }).end();
    return;
  }
  if (request.method === 'POST' && url.pathname === '/oauth2/token') {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    request.on('end', () => {
      const form = new URLSearchParams(text);
      const code = issued.get(form.get('code') ?? '');
      issued.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const good =
        code &&
        form.get('grant_type') === 'authorization_code' &&
        form.get('client_id') === code.clientId &&
        form.get('redirect_uri') === code.redirectUri &&
        createHash('sha256').update(verifier).digest('base64url') === code.challenge;
      if (!good) {
        response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_grant' }));
        return;
      }
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ access_token: tokenFor(code.user), id_token: tokenFor(code.user), token_type: 'Bearer', expires_in: 3600 }));
    });
    return;
  }
  response.writeHead(404).end();
});
const hostedBase = await listen(hostedUi);
process.env.CONSOLE_HOSTED_UI_URL = hostedBase;
process.env.CONSOLE_CLIENT_ID = TEST_AUDIENCE;

const { createLocalServer, loadHandlers } = await import('../../lib/local/server.ts');
const { seal } = await import('../../lib/oauth/sealing-key.ts');
const api = createLocalServer(await loadHandlers());
const base = await listen(api);
afterAll(async () => {
  await Promise.all([api, hostedUi].map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

const REDIRECT = 'http://127.0.0.1:4567/callback';

/** A registered client and an authorization request of its. */
async function authorizationRequest() {
  const answer = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    body: JSON.stringify({ client_name: 'Hosted agent', redirect_uris: [REDIRECT] }),
  });
  const { client_id: clientId } = (await answer.json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'client-state',
    resource: `${base}/mcp`,
  };
  return { clientId, verifier, url: `${base}/oauth/authorize?${new URLSearchParams(params)}` };
}

/** The page's sign-in link, and the cookie that came with it (`name=value`). */
async function startSignIn(url: string) {
  const page = await fetch(url);
  const html = await page.text();
  const link = /<a href="([^"]+)" rel="noreferrer">Sign in with your account<\/a>/.exec(html)?.[1]?.replaceAll('&#38;', '&') ?? '';
  const setCookie = page.headers.get('set-cookie') ?? '';
  return { page, html, link: new URL(link), setCookie, cookie: setCookie.split(';')[0]! };
}

/** The person at the hosted UI: back to /oauth/authorize with its code and state. */
async function signInAt(link: URL, person: string): Promise<string> {
  signsIn = person;
  const answer = await fetch(link, { redirect: 'manual' });
  expect(answer.status).toBe(302);
  return answer.headers.get('location')!;
}

const ticketOf = (html: string): string => /name="ticket" value="([^"]+)"/.exec(html)?.[1] ?? '';

describe('the consent screen with the hosted UI', () => {
  it('sends the person through the hosted UI (PKCE) and back to the consent screen with the request intact; the grant works', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const { clientId, verifier, url } = await authorizationRequest();

    const started = await startSignIn(url);

    expect(started.page.status).toBe(200);
    expect(started.html).toContain('Or paste an access token');
    expect(started.link.origin + started.link.pathname).toBe(`${hostedBase}/oauth2/authorize`);
    expect(Object.fromEntries(started.link.searchParams)).toEqual({
      response_type: 'code',
      client_id: TEST_AUDIENCE,
      redirect_uri: `${base}/oauth/authorize`,
      scope: 'openid email profile',
      state: expect.stringMatching(/^[\w-]{43}$/),
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      code_challenge_method: 'S256',
    });
    expect(started.setCookie).toMatch(/^ws_oauth_sign_in=[\w.-]+; Max-Age=600; Path=\/oauth\/authorize; HttpOnly; Secure; SameSite=Lax$/);

    const back = await signInAt(started.link, users.owner);
    expect(back.startsWith(`${base}/oauth/authorize?code=`)).toBe(true);
    const consentPage = await fetch(back, { headers: { cookie: started.cookie } });
    const html = await consentPage.text();

    expect(consentPage.status).toBe(200);
    expect(consentPage.headers.get('set-cookie')).toBe(
      'ws_oauth_sign_in=; Max-Age=0; Path=/oauth/authorize; HttpOnly; Secure; SameSite=Lax',
    );
    expect(consentPage.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(html).toContain('<strong>Hosted agent</strong>');
    expect(html).toContain(`value="${orgId}"`);
    // The request, intact: its fields ride in the consent form again.
    expect(html).toContain('name="state" value="client-state"');

    const approved = await fetch(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        ...Object.fromEntries(new URL(url).searchParams),
        ticket: ticketOf(html),
        decision: 'approve',
        organization_id: orgId,
        role: 'viewer',
        expires_in_days: '1',
      }).toString(),
      redirect: 'manual',
    });
    const location = new URL(approved.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe('client-state');
    const exchanged = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: location.searchParams.get('code')!,
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      }).toString(),
    });
    const { access_token: accessToken } = (await exchanged.json()) as { access_token: string };
    expect((await fetch(`${base}/organizations/${orgId}`, { headers: { Authorization: `Bearer ${accessToken}` } })).status).toBe(200);
  });

  it('refuses a return without the cookie, with a forged one, one sealed with another key or for another use, or another sign-in’s: a page, nothing issued', async () => {
    const { users } = await workspace();
    const { url } = await authorizationRequest();
    const mine = await startSignIn(url);
    const other = await startSignIn(url);
    const back = await signInAt(mine.link, users.owner);
    const [name, value] = mine.cookie.split('=') as [string, string];
    const forged = `${name}=${value.slice(0, -2)}${value.endsWith('AA') ? 'BB' : 'AA'}`;
    // What the cookie carried, for this very return (its nonce is the state the hosted UI sent back).
    const pending = {
      nonce: new URL(back).searchParams.get('state'),
      verifier: randomBytes(32).toString('base64url'),
      query: new URL(url).searchParams.toString(),
      until: Date.now() + 600_000,
    };
    // As the service sealed it before issue 45: the cursor key, under its own label.
    const payload = Buffer.from(JSON.stringify(pending)).toString('base64url');
    const cursorMac = createHmac('sha256', process.env.CURSOR_SIGNING_KEY ?? '')
      .update(`oauth-sign-in|${payload}`)
      .digest('base64url');
    // The OAuth sealing key itself, for a consent ticket's use.
    const asTicket = await seal('oauth-consent-ticket:any', pending);

    const cases = [
      [undefined, 'this sign-in was not started in this browser'],
      [forged, 'this sign-in was not started in this browser'],
      [`${name}=${payload}.${cursorMac}`, 'this sign-in was not started in this browser'],
      [`${name}=${asTicket}`, 'this sign-in was not started in this browser'],
      [other.cookie, 'this sign-in does not belong to the one this browser started'],
      // The same state sealed with the key for its use is taken (its made-up verifier then fails PKCE at the hosted UI).
      [`${name}=${await seal('oauth-sign-in-state', pending)}`, 'the sign-in could not be completed (invalid_grant)'],
    ] as const;
    for (const [cookie, message] of cases) {
      const answer = await fetch(back, cookie ? { headers: { cookie } } : {});
      const html = await answer.text();
      expect([answer.status, html.includes(message), html.includes('name="ticket"')]).toEqual([400, true, false]);
    }
  });

  it('refuses a return past 10 minutes', async () => {
    const { users } = await workspace();
    const { url } = await authorizationRequest();
    const started = await startSignIn(url);
    const back = await signInAt(started.link, users.owner);
    const realNow = Date.now;
    Date.now = () => realNow() + 601_000;
    let answer: Response;
    try {
      answer = await fetch(back, { headers: { cookie: started.cookie } });
    } finally {
      Date.now = realNow;
    }

    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('the sign-in took longer than 10 minutes');
  });

  it('shows the sign-in page again, with a fresh link, when the hosted UI says no or its code is refused', async () => {
    const { users } = await workspace();
    const { url } = await authorizationRequest();
    const started = await startSignIn(url);
    const state = started.link.searchParams.get('state')!;
    const denied = await fetch(
      `${base}/oauth/authorize?${new URLSearchParams({ error: 'access_denied', error_description: 'User cancelled', state })}`,
      {
        headers: { cookie: started.cookie },
      },
    );
    const back = await signInAt(started.link, users.owner);
    await fetch(back, { headers: { cookie: started.cookie } });
    // The same return again (the browser's back button): the hosted UI's code is spent.
    const replayed = await fetch(back, { headers: { cookie: started.cookie } });

    expect(denied.status).toBe(400);
    const deniedPage = await denied.text();
    expect(deniedPage).toContain('the sign-in page said: User cancelled');
    expect(deniedPage).toContain('Sign in with your account');
    expect(denied.headers.get('set-cookie')).toMatch(/^ws_oauth_sign_in=[\w.-]+; Max-Age=600;/);
    expect(replayed.status).toBe(400);
    expect(await replayed.text()).toContain('the sign-in could not be completed (invalid_grant): start again');
  });

  it('offers the pasted token alone when the request is too long to carry in a cookie', async () => {
    const longRedirect = `http://127.0.0.1:4567/${'a'.repeat(1900)}`;
    const answer = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      body: JSON.stringify({ client_name: 'Long agent', redirect_uris: [longRedirect] }),
    });
    const { client_id: clientId } = (await answer.json()) as { client_id: string };
    const params = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: longRedirect,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: '%'.repeat(1000),
      resource: `${base}/mcp`,
    };

    const page = await fetch(`${base}/oauth/authorize?${new URLSearchParams(params)}`);
    const html = await page.text();

    expect(page.status).toBe(200);
    expect(page.headers.get('set-cookie')).toBeNull();
    expect(html).not.toContain('Sign in with your account');
    expect(html).toContain('This request is too long to carry through the sign-in page: paste your access token instead.');
  });

  it('still takes a pasted token (another issuer’s, or a script’s)', async () => {
    const { users } = await workspace();
    const { url } = await authorizationRequest();
    const answer = await fetch(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...Object.fromEntries(new URL(url).searchParams), token: tokenFor(users.editor) }).toString(),
    });

    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('name="ticket"');
  });
});
