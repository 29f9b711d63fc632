/**
 * `admin providers check` against the three vendors' stubs on 127.0.0.1: no table (the unit
 * tier's endpoint refuses connections), each operation a provider serves asked once, a shape the
 * adapter does not read reported with its field and exit 1, a provider without its key skipped.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { main } from '../scripts/admin/main.ts';
import { startDeployedProviders } from './support/deployed-providers.ts';

const providers = await startDeployedProviders();
afterAll(() => providers.close());
const saved = Object.fromEntries(Object.keys(providers.environment).map((name) => [name, process.env[name]]));
Object.assign(process.env, providers.environment, { PROVIDER_TIMEOUT_MS: '2000' });
afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});
afterEach(() => {
  providers.tikhub.always({ kind: 'fixture' });
  process.env.TIKHUB_API_KEY = providers.environment.TIKHUB_API_KEY;
});

async function admin(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (text) => (out += text), err: (text) => (err += text) });
  return { code, err, document: out ? JSON.parse(out) : undefined };
}

describe('admin providers check', () => {
  it('asks each vendor for each operation it serves, with no table and no charge: all 55 answer in the shape read', async () => {
    const before = providers.tikhub.requests.length;
    const { code, document } = await admin('providers', 'check');
    expect(code).toBe(0);
    expect(document.ok).toBe(true);
    expect(document.summary).toEqual({ ok: 55, not_found: 0, failed: 0, skipped: 0 });
    expect(document.providers.map((entry: { provider: string; checks: unknown[] }) => [entry.provider, entry.checks.length])).toEqual([
      ['http', 41],
      ['tikhub', 11],
      ['facebook_scraper3', 3],
    ]);
    // TikHub's own inputs where the catalog's example asks what its endpoint lacks (followers, not following).
    expect(providers.tikhub.requests.slice(before).map((request) => request.path)).toContain('/api/v1/twitter/web/fetch_user_followers');
  });

  it('reports an answer of another shape with its field, and exits 1 after the report', async () => {
    providers.tikhub.always({ kind: 'garbage' });
    const { code, document } = await admin('providers', 'check', '--provider', 'tikhub', '--operation', 'youtube_trending');
    expect(code).toBe(1);
    expect(document).toEqual({
      ok: false,
      summary: { ok: 0, not_found: 0, failed: 1, skipped: 0 },
      providers: [
        {
          provider: 'tikhub',
          name: 'TikHub',
          checks: [
            {
              operation: 'youtube_trending',
              outcome: 'failed',
              ms: expect.any(Number),
              error: "TikHub's answer to youtube_trending is not the shape read: videos",
            },
          ],
        },
      ],
    });
  });

  it('sends --input instead of the example, and says when a provider lacks its key', async () => {
    const before = providers.fbs3.requests.length;
    const { code, document } = await admin(
      'providers',
      'check',
      '--provider',
      'facebook_scraper3',
      '--operation',
      'facebook_search',
      '--input',
      '{"query":"launch","type":"videos"}',
    );
    expect([code, document.summary.ok]).toEqual([0, 1]);
    expect(providers.fbs3.requests.slice(before)).toEqual([{ path: '/search/videos', query: { query: 'launch' } }]);

    delete process.env.TIKHUB_API_KEY;
    const missing = await admin('providers', 'check', '--provider', 'tikhub');
    expect(missing.code).toBe(1);
    expect(missing.document.providers).toEqual([{ provider: 'tikhub', name: 'TikHub', skipped: 'no key: set TIKHUB_API_KEY to check it' }]);
  });

  it.each([
    [
      ['--provider', 'ftp'],
      'providers check: --provider must be one of http, tikhub, facebook_scraper3, got "ftp" (providers check --help)',
    ],
    [['--input', '{}'], 'providers check: --input goes with --operation (providers check --help)'],
    [['--operation', 'x_search', '--input', '[1]'], 'providers check: --input must be a JSON object (providers check --help)'],
    [['--operation', 'nope'], 'providers check: --operation: no operation "nope" in the catalog'],
    [['--provider', 'tikhub', '--operation', 'facebook_search'], 'providers check: tikhub does not serve facebook_search'],
    [['--operation', 'x_search', '--input', '{"query":""}'], 'providers check: --input is not a valid input of x_search'],
    [['--table', 'workspace'], 'providers check: unknown option --table'],
  ])('refuses %j: exit 2, %s', async (args, message) => {
    const { code, err, document } = await admin('providers', 'check', ...args);
    expect([code, document]).toEqual([2, undefined]);
    expect(err).toContain(message);
  });
});
