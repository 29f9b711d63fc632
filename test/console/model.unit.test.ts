/**
 * The console's pure logic (console/src/model.ts, pkce.ts): who is offered what, limits as meters,
 * the usage chart's stacked series, CSV pages, what people type, a job's progress and polling, a
 * token's expiry, and PKCE as RFC 7636 computes it. No browser.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { intlAccepts, usableLanguage } from '../../console/src/locale.ts';
import {
  adviceFor,
  auditLines,
  cardBrand,
  connectedApps,
  consentText,
  disabledReasonText,
  formatCredits,
  formatMoney,
  formatTime,
  hostOf,
  JOB_POLL_MS,
  jobIsActive,
  jobProgress,
  joinCsvPages,
  meterOf,
  nextLink,
  notWorking,
  parseAddresses,
  parseLimit,
  parseThresholds,
  parseWhole,
  permissionsOf,
  purchasePollDelay,
  purchaseSettled,
  screenOf,
  screensFor,
  stacked,
  tokenExpiry,
  usageSeries,
  usageWindow,
} from '../../console/src/model.ts';
import { authorizeUrl, callbackOf, challengeOf, logoutUrl, randomToken, tokenRequestBody } from '../../console/src/pkce.ts';

describe('an audit event, as a person reads it', () => {
  it('says a change as before → after, a detail as its value, and leaves out null details', () => {
    expect(auditLines({ spending_limit: { before: null, after: 100 }, networks: { before: ['x'], after: ['x', 'tiktok'] } }, null)).toEqual(
      ['spending_limit: none → 100', 'networks: ["x"] → ["x","tiktok"]'],
    );
    expect(auditLines(null, { name: 'agent', role: 'editor', client_id: null, daily_limit: 5 })).toEqual([
      'name: agent',
      'role: editor',
      'daily_limit: 5',
    ]);
    expect(auditLines(null, {})).toEqual([]);
  });
});

describe('the operations not working, from the status page', () => {
  it('names each with what it means for a run, and since when; none while all are operational', () => {
    expect(
      notWorking([
        { operation: 'x_profile', status: 'partial_outage', since: '2026-11-29T03:01:02.000Z' },
        { operation: 'x_search', status: 'operational', since: null },
        { operation: 'youtube_trending', status: 'major_outage', since: null },
      ]),
    ).toEqual([
      { operation: 'x_profile', words: 'served by a backup provider since 2026-11-29 03:01 UTC' },
      { operation: 'youtube_trending', words: 'not available' },
    ]);
    expect(notWorking([{ operation: 'x_search', status: 'operational', since: null }])).toEqual([]);
  });
});

describe('billing figures', () => {
  it('writes prices from minor units without Intl, zero-decimal currencies whole', () => {
    expect([formatMoney(2_500, 'usd'), formatMoney(1, 'eur'), formatMoney(123_456_789, 'usd'), formatMoney(-5, 'usd')]).toEqual([
      '25.00 USD',
      '0.01 EUR',
      '1,234,567.89 USD',
      '-0.05 USD',
    ]);
    expect(formatMoney(5_000, 'jpy')).toBe('5,000 JPY');
    expect(['visa', 'amex', 'link'].map(cardBrand)).toEqual(['Visa', 'American Express', 'link']);
  });

  it('reads a whole number typed with separators, within its bounds', () => {
    expect(parseWhole(' 2,500 ', 500, 100_000)).toEqual({ ok: true, value: 2_500 });
    for (const text of ['499', '100001', '2.5', '', 'abc', '-600'])
      expect(parseWhole(text, 500, 100_000)).toEqual({ ok: false, error: 'a whole number from 500 to 100,000' });
  });

  it('follows a purchase until it is paid, failed or expired, and says why auto-recharge turned off', () => {
    expect((['open', 'processing', 'paid', 'failed', 'expired'] as const).filter(purchaseSettled)).toEqual(['paid', 'failed', 'expired']);
    // Every 250 ms for the first 2 s, then every second: at most 8 + 298 reads in the 5 minutes followed, within the rate limit.
    expect([1, 7, 8, 100].map(purchasePollDelay)).toEqual([250, 250, 1_000, 1_000]);
    expect([null, 'consecutive_failures', 'dispute', 'payment_method_removed'].map(disabledReasonText)).toEqual([
      undefined,
      'three payments in a row failed',
      'a payment was disputed',
      'the card was removed',
    ]);
  });
});

describe('what the console offers', () => {
  it('gives owners with a user token every screen and action, and API keys none that the API refuses them', () => {
    const owner = permissionsOf({ role: 'owner', tokenKind: 'user' });
    expect(screensFor(owner)).toEqual([
      'overview',
      'usage',
      'billing',
      'events',
      'keys',
      'apps',
      'members',
      'alerts',
      'trash',
      'jobs',
      'audit',
    ]);
    expect(Object.values(owner).every(Boolean)).toBe(true);
    // An API key is never an owner; an editor key reads and restores, and manages nothing.
    const editorKey = permissionsOf({ role: 'editor', tokenKind: 'api_key' });
    expect(screensFor(editorKey)).toEqual(['overview', 'usage', 'alerts', 'trash', 'jobs']);
    expect(editorKey).toEqual({
      billingEvents: false,
      funding: false,
      manageOrganization: false,
      apiKeys: false,
      members: false,
      editAlerts: false,
      webhooks: false,
      trash: true,
      cancelJobs: true,
      auditLog: false,
    });
  });

  it('gives an owner signed in with an API key the billing events, never the purchases a checkout needs a person for', () => {
    const ownerKey = permissionsOf({ role: 'owner', tokenKind: 'api_key' });
    expect(screensFor(ownerKey)).toEqual(['overview', 'usage', 'events', 'alerts', 'trash', 'jobs']);
    expect(ownerKey.funding).toBe(false);
  });

  it('gives a viewer the read-only screens and no action', () => {
    const viewer = permissionsOf({ role: 'viewer', tokenKind: 'user' });
    expect(screensFor(viewer)).toEqual(['overview', 'usage', 'alerts', 'jobs']);
    expect(Object.values(viewer).some(Boolean)).toBe(false);
  });

  it('opens the screen the fragment names when allowed, else the overview', () => {
    const allowed = screensFor(permissionsOf({ role: 'viewer', tokenKind: 'user' }));
    expect(screenOf('#usage', allowed)).toBe('usage');
    expect(screenOf('#/jobs', allowed)).toBe('jobs');
    expect(screenOf('#keys', allowed)).toBe('overview');
    expect(screenOf('', allowed)).toBe('overview');
    expect(screenOf('#constructor', allowed)).toBe('overview');
  });
});

describe('connected apps', () => {
  const NOW = Date.parse('2026-07-08T12:00:00Z');
  const grant = (id: string, extra: Record<string, unknown>) => ({
    id,
    created_at: '2026-07-01T00:00:00.000Z',
    revoked_at: null as string | null,
    expires_at: '2026-08-01T00:00:00.000Z',
    ...extra,
  });

  it('groups the OAuth grants by client, standing ones apart from ended ones, clients still connected first', () => {
    const keys = [
      grant('key_plain', {}),
      grant('key_a1', { created_via: 'oauth', client_id: 'wsc_a', client_name: null, redirect_uri: 'https://a.example/cb' }),
      grant('key_a2', {
        created_via: 'oauth',
        client_id: 'wsc_a',
        client_name: 'Agent A',
        redirect_uri: 'https://a2.example:8443/cb',
        created_at: '2026-07-05T00:00:00.000Z',
      }),
      grant('key_a3', { created_via: 'oauth', client_id: 'wsc_a', client_name: 'Agent A', revoked_at: '2026-07-02T00:00:00.000Z' }),
      grant('key_b', {
        created_via: 'oauth',
        client_id: 'https://b.example/client.json',
        redirect_uri: null,
        created_at: '2026-07-07T00:00:00.000Z',
        expires_at: '2026-07-08T00:00:00.000Z',
      }),
    ];
    const apps = connectedApps(keys, NOW);
    expect(
      apps.map((app) => ({
        clientId: app.clientId,
        name: app.name,
        redirectHosts: app.redirectHosts,
        active: app.active.map((key) => key.id),
        ended: app.ended.map((key) => key.id),
      })),
    ).toEqual([
      {
        clientId: 'wsc_a',
        name: 'Agent A',
        redirectHosts: ['a2.example:8443', 'a.example'],
        active: ['key_a2', 'key_a1'],
        ended: ['key_a3'],
      },
      // Expired, no name and no redirect URI kept: named by its metadata document's host.
      { clientId: 'https://b.example/client.json', name: 'b.example', redirectHosts: [], active: [], ended: ['key_b'] },
    ]);
    expect(connectedApps([grant('key_plain', {})], NOW)).toEqual([]);
  });

  it('reads a host from a URL, and nothing from what is not one', () => {
    expect(hostOf('https://agent.example/oauth/callback')).toBe('agent.example');
    expect(hostOf('http://127.0.0.1:4567/callback')).toBe('127.0.0.1:4567');
    expect(hostOf('wsc_0123')).toBeNull();
    expect(hostOf(null)).toBeNull();
  });
});

describe('numbers and limits as people read them', () => {
  it('formats credits and UTC times', () => {
    expect([formatCredits(1), formatCredits(0), formatCredits(1234567), formatCredits(-2.5)]).toEqual([
      '1 credit',
      '0 credits',
      '1,234,567 credits',
      '-2.5 credits',
    ]);
    expect(formatTime('2026-07-08T14:03:05.120Z')).toBe('2026-07-08 14:03 UTC');
    expect(formatTime(null)).toBe('—');
  });

  it('shows spend against a limit, warning from 80% and over at the limit', () => {
    expect(meterOf(40, null)).toEqual({ ratio: null, text: '40 credits spent, no limit', level: 'ok' });
    expect(meterOf(40, 200)).toEqual({ ratio: 0.2, text: '40 of 200 credits (20%)', level: 'ok' });
    expect(meterOf(160, 200).level).toBe('warn');
    expect(meterOf(250, 200)).toEqual({ ratio: 1, text: '250 of 200 credits (125%)', level: 'over' });
    expect(meterOf(0, 0)).toEqual({ ratio: 0, text: '0 of 0 credits (0%)', level: 'over' });
  });

  it('reads limits, addresses and thresholds as typed', () => {
    expect(parseLimit(' 250 ')).toEqual({ ok: true, value: 250 });
    expect(parseLimit('')).toEqual({ ok: true, value: null });
    expect(parseLimit('2.5').ok).toBe(false);
    expect(parseLimit('-1').ok).toBe(false);
    // confirm_above is typed as a limit is, and read as a threshold; 0 asks before every paid call.
    expect(consentText(null)).toBe('MCP calls never ask first');
    expect(consentText(0)).toBe('MCP calls above 0 credits ask first');
    expect(consentText(1)).toBe('MCP calls above 1 credit ask first');
    expect(parseAddresses('203.0.113.7, 10.0.0.0/8\n2001:db8::/32')).toEqual(['203.0.113.7', '10.0.0.0/8', '2001:db8::/32']);
    expect(parseAddresses('  ')).toBeNull();
    expect(parseThresholds('80, 100')).toEqual({ ok: true, value: [80, 100] });
    expect(parseThresholds('').ok).toBe(false);
    expect(parseThresholds('80%').ok).toBe(false);
  });

  it('says what to do about the errors a person can act on', () => {
    expect(adviceFor('insufficient_credits')).toContain('buy credits on the Billing screen');
    expect(adviceFor('last_owner')).toContain('another member an owner');
    expect(adviceFor('parent_deleted')).toContain('project first');
    expect(adviceFor('internal_error')).toBeUndefined();
  });
});

describe('the usage chart', () => {
  const day = (date: string, results: object[]) => ({ start: `${date}T00:00:00.000Z`, end: '', results }) as never;
  const result = (fields: object, net: number) => ({ runs: 1, charged: net, refunded: 0, net, ...fields });

  it('asks for the last 30 UTC days, today included', () => {
    expect(usageWindow(Date.parse('2026-07-08T14:03:00Z'))).toEqual({ from: '2026-06-09T00:00:00.000Z', to: '2026-07-09T00:00:00.000Z' });
  });

  it('sums each group by day, most credits first, and stacks the series', () => {
    const buckets = [
      day('2026-07-07', [result({ operation: 'x_profile' }, 2), result({ operation: 'tiktok_search' }, 5)]),
      day('2026-07-08', []),
      day('2026-07-09', [result({ operation: 'x_profile' }, 1)]),
    ];
    const series = usageSeries(buckets, 'operation');
    expect(series.groups).toEqual(['tiktok_search', 'x_profile']);
    expect(series.values).toEqual([
      [5, 0, 0],
      [2, 0, 1],
    ]);
    expect(series.days).toEqual([
      Date.parse('2026-07-07T00:00:00Z') / 1000,
      Date.parse('2026-07-08T00:00:00Z') / 1000,
      Date.parse('2026-07-09T00:00:00Z') / 1000,
    ]);
    expect(series.totals[1]).toEqual({ group: 'x_profile', runs: 2, charged: 3, refunded: 0, net: 3 });
    expect(stacked(series.values)).toEqual([
      [5, 0, 0],
      [7, 0, 1],
    ]);
  });

  it("names a key's runs under members and a member's under keys, and folds groups past the chart's colours into other", () => {
    const buckets = [day('2026-07-07', [result({ member: null }, 1), result({ member: 'user_a' }, 2)])];
    expect(usageSeries(buckets, 'member').groups).toEqual(['user_a', 'API keys']);
    expect(usageSeries([day('2026-07-07', [result({ api_key: null }, 1)])], 'api_key').groups).toEqual(['members (no key)']);
    const many = [
      day(
        '2026-07-07',
        Array.from({ length: 10 }, (_, i) => result({ network: `n${i}` }, 10 - i)),
      ),
    ];
    const folded = usageSeries(many, 'network', 8);
    expect(folded.groups).toEqual(['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'other']);
    expect(folded.values[7]).toEqual([3 + 2 + 1]);
  });
});

describe('CSV downloads', () => {
  it('follows Link rel="next" and joins pages with the header once', () => {
    expect(nextLink('<https://api.example/x?cursor=abc>; rel="next"')).toBe('https://api.example/x?cursor=abc');
    expect(nextLink('<a>; rel="prev", </b?c=1>; rel=next')).toBe('/b?c=1');
    expect(nextLink(null)).toBeNull();
    expect(joinCsvPages(['id,amount\r\n1,2\r\n', 'id,amount\r\n3,4\r\n', 'id,amount\r\n'])).toBe('id,amount\r\n1,2\r\n3,4\r\n');
  });
});

describe('jobs and tokens', () => {
  it('polls a job at most every 5 s while it is queued or running, and counts its progress', () => {
    expect(JOB_POLL_MS).toBeGreaterThanOrEqual(5_000);
    expect([jobIsActive('queued'), jobIsActive('running'), jobIsActive('completed'), jobIsActive('cancelled')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(jobProgress({ total: 3, succeeded: 1, failed: 1, cancelled: 0 })).toEqual({ done: 2, percent: 66 });
    expect(jobProgress({ total: 0, succeeded: 0, failed: 0, cancelled: 0 }).percent).toBe(100);
  });

  it("reads a token's expiry from its payload, and none from what is not a JWT", () => {
    const payload = Buffer.from(JSON.stringify({ sub: 'user_a', exp: 1_800_000_000 })).toString('base64url');
    expect(tokenExpiry(`eyJhbGciOiJSUzI1NiJ9.${payload}.signature`)).toBe(1_800_000_000_000);
    expect(tokenExpiry('not-a-token')).toBeNull();
    expect(tokenExpiry('a.%%%.c')).toBeNull();
  });
});

describe('PKCE and the hosted UI', () => {
  const hosted = { url: 'https://example-pool.auth.eu-west-1.amazoncognito.com', clientId: 'client123' };

  it('computes the S256 challenge (BASE64URL of SHA-256, as Node computes it), of 43-character random verifiers', async () => {
    const verifier = randomToken();
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomToken()).not.toBe(verifier);
    expect(await challengeOf(verifier)).toBe(createHash('sha256').update(verifier).digest('base64url'));
    expect(await challengeOf('a')).toBe('ypeBEsobvcr6wjGzmiPcTaeG7_gUfE5yuYB3ha_uSLs');
  });

  it('asks the hosted UI for a code with the challenge, and the token endpoint with the verifier', () => {
    const url = new URL(authorizeUrl(hosted, 'https://api.example/console', 'state1', 'challenge1'));
    expect(url.origin + url.pathname).toBe(`${hosted.url}/oauth2/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'client123',
      redirect_uri: 'https://api.example/console',
      scope: 'openid email profile',
      state: 'state1',
      code_challenge: 'challenge1',
      code_challenge_method: 'S256',
    });
    expect(Object.fromEntries(new URLSearchParams(tokenRequestBody(hosted, 'https://api.example/console', 'code1', 'verifier1')))).toEqual({
      grant_type: 'authorization_code',
      client_id: 'client123',
      code: 'code1',
      redirect_uri: 'https://api.example/console',
      code_verifier: 'verifier1',
    });
    expect(logoutUrl(hosted, 'https://api.example/console')).toBe(
      `${hosted.url}/logout?client_id=client123&logout_uri=https%3A%2F%2Fapi.example%2Fconsole`,
    );
  });

  it("reads the hosted UI's answer from the page's query", () => {
    expect(callbackOf('?code=abc&state=xyz')).toEqual({ kind: 'code', code: 'abc', state: 'xyz' });
    expect(callbackOf('?error=access_denied&error_description=User+cancelled')).toEqual({ kind: 'error', message: 'User cancelled' });
    expect(callbackOf('')).toEqual({ kind: 'none' });
    expect(callbackOf('?code=abc')).toEqual({ kind: 'none' });
  });
});

describe('usableLanguage: the language the console tells its libraries', () => {
  const accepts = (tag: string) => ['en-US', 'de-DE', 'fr'].includes(tag);

  it('keeps a language Intl takes, drops a variant Intl refuses, and falls back to en-US', () => {
    expect(usableLanguage('de-DE', accepts)).toBe('de-DE');
    expect(usableLanguage('en-US@posix', accepts)).toBe('en-US');
    expect(usableLanguage('fr@euro', accepts)).toBe('fr');
    expect(usableLanguage('xx@posix', accepts)).toBe('en-US');
    expect(usableLanguage('', accepts)).toBe('en-US');
  });

  it("reads Intl's own verdict: Node's ICU refuses the tag Chromium reports under LANG=C", () => {
    expect(intlAccepts('en-US@posix')).toBe(false);
    expect(usableLanguage('en-US@posix', intlAccepts)).toBe('en-US');
    expect(usableLanguage('de-DE', intlAccepts)).toBe('de-DE');
  });
});
