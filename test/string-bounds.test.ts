/**
 * Every string a client sends has a length bound, in validation and in the API description alike
 * (test/openapi.unit.test.ts checks the document): a longer value is refused with one issue, worded
 * as the field's rule, before any pattern runs over it; and no bound refuses a value its pattern
 * accepts (the longest real input passes).
 */
import { describe, expect, it } from 'vitest';
import { handler as quoteHandler } from '../functions/quote-social-operation.ts';
import { handler as runHandler } from '../functions/run-social-operation.ts';
import { workspace } from './support/fixtures.ts';
import { call, withoutRequestId } from './support/http.ts';
import { tokenFor } from './support/tokens.ts';

const { orgId, users } = await workspace({ credits: 5 });
const token = tokenFor(users.editor);

const quote = (operation: string, body: unknown, headers: Record<string, string> = {}, org = orgId) =>
  call(quoteHandler, { method: 'POST', url: `/social/${operation}/quote?organization_id=${org}`, token, body, headers });

const oneIssue = (path: (string | number)[], code: string, message: string) => ({
  code: 'validation_failed',
  message: `${path.join('.')}: ${message}`,
  data: { issues: [{ path, code, message }] },
});

describe('too long: one issue, the field rule', () => {
  it.each([
    [
      'organization_id',
      { org: `org_${'a'.repeat(65)}` },
      ['query', 'organization_id'],
      'must start with "org_" followed by 1 to 64 letters, digits, "_" or "-"',
    ],
    ['operation', { operation: 'x'.repeat(101) }, ['path', 'operation'], 'must be at most 100 characters long: the name of an operation'],
    [
      'Cache-Control',
      { headers: { 'cache-control': `max-age=1${' '.repeat(60)}` } },
      ['header', 'cache-control'],
      'must be max-age=<seconds>, 0 to 86400',
    ],
    [
      'region',
      { operation: 'tiktok_trending', body: { region: 'USA' } },
      ['body', 'region'],
      'must be an ISO 3166-1 alpha-2 country code in capitals, e.g. US',
    ],
    [
      'hashtag',
      { operation: 'tiktok_hashtag_posts', body: { hashtag: 'a'.repeat(10_000) } },
      ['body', 'hashtag'],
      'must be a hashtag of letters, digits or "_", with or without "#"',
    ],
    [
      'subreddit',
      { operation: 'reddit_subreddit_posts', body: { subreddit: `r/${'a'.repeat(22)}` } },
      ['body', 'subreddit'],
      'must be a subreddit name, with or without "r/"',
    ],
  ] as const)('%s', async (_field, request, path, message) => {
    const {
      operation = 'x_profile',
      body = { handle: 'nasa' },
      headers = {},
      org = orgId,
    } = request as {
      operation?: string;
      body?: unknown;
      headers?: Record<string, string>;
      org?: string;
    };

    const answer = await quote(operation, body, headers, org);

    expect({ status: answer.status, body: withoutRequestId(answer.body) }).toEqual({
      status: 400,
      body: oneIssue([...path], 'too_big', message),
    });
  });

  it('Idempotency-Key, on a run, charging nothing', async () => {
    const answer = await call(runHandler, {
      method: 'POST',
      url: `/social/x_profile?organization_id=${orgId}`,
      token,
      headers: { 'idempotency-key': 'k'.repeat(256) },
      body: { handle: 'nasa' },
    });

    expect({ status: answer.status, body: withoutRequestId(answer.body) }).toEqual({
      status: 400,
      body: oneIssue(
        ['header', 'idempotency-key'],
        'too_big',
        'must be 1 to 255 printable ASCII characters without spaces (a UUID is recommended)',
      ),
    });
  });

  it('Endless-Api-Version over 32 characters is not a version', async () => {
    const answer = await quote('x_profile', { handle: 'nasa' }, { 'endless-api-version': `${' '.repeat(32)}1` });

    expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 400, code: 'unsupported_api_version' });
  });
});

describe('the longest real input still passes', () => {
  it.each([
    ['a hashtag of 100 letters outside the BMP', 'tiktok_hashtag_posts', { hashtag: `#${'𠀀'.repeat(100)}` }],
    ['a 21-character subreddit with r/', 'reddit_subreddit_posts', { subreddit: `r/${'a'.repeat(21)}` }],
    ['a 30-digit sound id', 'tiktok_music_posts', { music_id: '1'.repeat(30) }],
    ['a highlight id with its prefix', 'instagram_highlight_stories', { highlight_id: `highlight:${'1'.repeat(30)}` }],
  ])('%s', async (_case, operation, body) => {
    const answer = await quote(operation, body, { 'cache-control': '  max-age=86400  ', 'endless-api-version': ' 1.0 ' });

    expect({ status: answer.status, allowed: answer.body.allowed }).toEqual({ status: 200, allowed: true });
  });
});
