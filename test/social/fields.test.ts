/**
 * `fields` through the real handlers on DynamoDB Local (DESIGN.md, "Outputs sized for agents";
 * docs/social-operations.md, "Fields"): a run answers only the asked paths at the same charge;
 * every bad value is a 400 naming `fields` and the path, before anything is read or charged (the
 * quote checks it the same way); a cached result is read again with other fields for free;
 * `fields` is part of an Idempotency-Key's identity; a job applies its `fields` to every item;
 * the MCP tools take `_fields`.
 */
import { describe, expect, it, vi } from 'vitest';
import { handler as createJob } from '../../functions/create-social-job.ts';
import { handler as listItems } from '../../functions/list-social-job-items.ts';
import { handler as mcpHandler } from '../../functions/mcp.ts';
import { handler as quote } from '../../functions/quote-social-operation.ts';
import { handler as run } from '../../functions/run-social-operation.ts';
import { listActiveJobs } from '../../lib/db/jobs.ts';
import { getOrganization } from '../../lib/db/organizations.ts';
import { findOperation, validateOperationInput } from '../../lib/social/operations.ts';
import { sampleProvider } from '../../lib/social/providers/sample.ts';
import { uniqueId, workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { drainJobs } from '../support/jobs.ts';
import { ledgerProblems, readLedger } from '../support/ledger.ts';
import { eventsOf } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

const POSTS = 'x_user_posts';
const INPUT = { handle: 'nasa', count: 4 };

type Post = { id: string; text: string | null; metrics: { likes: number | null }; author: { username: string | null } };
type Page = { items: Post[]; next_cursor: string | null; has_more: boolean };

/** What the sample provider answers for this input, whole: the run's output before `fields`. */
async function wholeOutput(operationName: string, input: unknown): Promise<unknown> {
  const operation = findOperation(operationName);
  return sampleProvider.run({ operation, input: validateOperationInput(operation, input), signal: new AbortController().signal });
}

const query = (orgId: string, fields?: string) =>
  `organization_id=${orgId}${fields === undefined ? '' : `&fields=${encodeURIComponent(fields)}`}`;
const runPosts = (orgId: string, user: string, fields?: string, headers: Record<string, string> = {}, body: unknown = INPUT) =>
  call(run, { method: 'POST', url: `/social/${POSTS}?${query(orgId, fields)}`, token: tokenFor(user), body, headers });
const quotePosts = (orgId: string, user: string, fields?: string) =>
  call(quote, { method: 'POST', url: `/social/${POSTS}/quote?${query(orgId, fields)}`, token: tokenFor(user), body: INPUT });
const mcp = (orgId: string, user: string, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
  call(mcpHandler, {
    method: 'POST',
    url: `/mcp?organization_id=${orgId}`,
    token: tokenFor(user),
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } },
  });

const charges = async (orgId: string) => (await eventsOf(orgId)).filter((event) => event.type === 'social_operation.charged');

/** The provider's calls during `work`. */
async function providerCalls<T>(work: () => Promise<T>): Promise<{ result: T; calls: number }> {
  const spy = vi.spyOn(sampleProvider, 'run');
  try {
    return { result: await work(), calls: spy.mock.calls.length };
  } finally {
    spy.mockRestore();
  }
}

/** The 400 for `fields` (at `at`) with these issues. */
const refused = (at: (string | number)[], ...issues: { code: string; message: string }[]) => ({
  code: 'validation_failed',
  message: `${at.join('.')}: ${issues[0]?.message}`,
  data: { issues: issues.map((issue) => ({ path: at, ...issue })) },
});

const POST_FIELDS = 'network, id, url, type, author, title, text, created_at, media, metrics, hashtags, mentions, music';
const BAD_FIELDS: [string, string, { code: string; message: string }[]][] = [
  ['an empty value', '', [{ code: 'too_small', message: 'must name at least one path, e.g. "items.*.id"' }]],
  ['only spaces', '   ', [{ code: 'too_small', message: 'must name at least one path, e.g. "items.*.id"' }]],
  ['an empty path between two', 'items.*.id,,items.*.text', [{ code: 'empty_path', message: 'path 2 of 3 is empty' }]],
  ['a trailing comma', 'items.*.id,', [{ code: 'empty_path', message: 'path 2 of 2 is empty' }]],
  ['an empty segment', 'items..id', [{ code: 'empty_path', message: '"items..id": has an empty segment (two dots, or a dot at an end)' }]],
  [
    'a typo of a field',
    'items.*.txt',
    [{ code: 'unknown_field', message: '"items.*.txt": items.* has no field "txt"; did you mean "text"?' }],
  ],
  [
    'a field the schema does not have',
    'items.*.caption',
    [{ code: 'unknown_field', message: `"items.*.caption": items.* has no field "caption"; its fields: ${POST_FIELDS}` }],
  ],
  [
    'a field of the top the schema does not have',
    'posts',
    [{ code: 'unknown_field', message: '"posts": the output has no field "posts"; its fields: items, next_cursor, has_more' }],
  ],
  [
    'a path below a value',
    'items.*.id.length',
    [{ code: 'unknown_field', message: '"items.*.id.length": items.*.id has no fields: the path ends at items.*.id' }],
  ],
  [
    'an array entered without *',
    'items.id',
    [
      {
        code: 'array_without_star',
        message: '"items.id": items is an array: enter it with "*", e.g. "items.*.id", or name items alone to keep it whole',
      },
    ],
  ],
  [
    '* on an object',
    'items.*.author.*',
    [{ code: 'not_an_array', message: '"items.*.author.*": items.*.author is not an array: "*" stands for every element of an array' }],
  ],
  [
    '* on the output',
    '*',
    [{ code: 'not_an_array', message: '"*": the output is not an array: "*" stands for every element of an array' }],
  ],
  [
    '51 paths (repeats count)',
    Array(51).fill('items.*.id').join(','),
    [{ code: 'too_big', message: 'must have at most 50 paths, not 51' }],
  ],
  ['2,001 characters', `items.*.id,${' '.repeat(1990)}`, [{ code: 'too_big', message: 'must be at most 2000 characters long' }]],
  [
    'two bad paths among good ones',
    'items.*.id,items.id,has_more,items.*.metrics.lieks',
    [
      {
        code: 'array_without_star',
        message: '"items.id": items is an array: enter it with "*", e.g. "items.*.id", or name items alone to keep it whole',
      },
      { code: 'unknown_field', message: '"items.*.metrics.lieks": items.*.metrics has no field "lieks"; did you mean "likes"?' },
    ],
  ],
];

describe('POST /social/{operation}?fields=', () => {
  it('answers only the asked paths, in the output’s order and shape, at the same charge', async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 5 });
    const whole = (await wholeOutput(POSTS, INPUT)) as Page;

    // Act: paths in another order than the output's, with spaces around them.
    const answer = await runPosts(orgId, users.editor, ' items.*.metrics.likes , items.*.id,items.*.author.username ,items.*.text');

    // Assess: the output's order (id, author, text, metrics), no paging fields, charged as a whole run.
    expect(answer.status).toBe(200);
    expect(answer.raw).toBe(
      JSON.stringify({
        items: whole.items.map((post) => ({
          id: post.id,
          author: { username: post.author.username },
          text: post.text,
          metrics: { likes: post.metrics.likes },
        })),
      }),
    );
    expect(answer.headers['credits-charged']).toBe('1');
    expect((await getOrganization(orgId))!.credits).toBe(4);
    expect(await charges(orgId)).toEqual([expect.objectContaining({ amount: -1, title: POSTS })]);
  });

  it('keeps a whole array, whole elements, and nulls along a path', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const whole = (await wholeOutput('x_profile', { handle: 'nasa' })) as Record<string, unknown>;

    const [page, elements, profile] = await Promise.all([
      runPosts(orgId, users.editor, 'items,has_more'),
      runPosts(orgId, users.editor, 'items.*,items.*.id'),
      call(run, {
        method: 'POST',
        url: `/social/x_profile?${query(orgId, 'created_at,bio,id')}`,
        token: tokenFor(users.editor),
        body: { handle: 'nasa' },
      }),
    ]);

    const posts = (await wholeOutput(POSTS, INPUT)) as Page;
    expect(page.body).toEqual({ items: posts.items, has_more: posts.has_more });
    expect(elements.body).toEqual({ items: posts.items });
    expect(profile.body).toEqual({ id: whole.id, bio: whole.bio, created_at: whole.created_at });
  });

  describe.each(BAD_FIELDS)('%s', (_, fields, issues) => {
    it('is a 400 naming query.fields and the path, nothing charged or run', async () => {
      // Prepare
      const { orgId, users } = await workspace({ credits: 5 });

      // Act
      const { result: answer, calls } = await providerCalls(() => runPosts(orgId, users.editor, fields));

      // Assess
      expect(answer.status).toBe(400);
      expect(withoutRequestId(answer.body)).toEqual(refused(['query', 'fields'], ...issues));
      expect(calls).toBe(0);
      expect((await getOrganization(orgId))!.credits).toBe(5);
      expect(await charges(orgId)).toEqual([]);
    });

    it('is the same 400 on a quote', async () => {
      const { orgId, users } = await workspace({ credits: 5 });

      const answer = await quotePosts(orgId, users.editor, fields);

      expect(answer.status).toBe(400);
      expect(withoutRequestId(answer.body)).toEqual(refused(['query', 'fields'], ...issues));
    });
  });

  it('is refused with the body’s issues when both are bad, still before anything is charged', async () => {
    const { orgId, users } = await workspace({ credits: 5 });

    const answer = await runPosts(orgId, users.editor, 'items.id', {}, { handle: 42 });

    // The input is checked first, as a run always did; fields after it, before any read.
    expect(answer.status).toBe(400);
    expect(answer.body.data.issues).toEqual([{ path: ['body', 'handle'], code: 'invalid_type', message: expect.any(String) }]);
    expect((await getOrganization(orgId))!.credits).toBe(5);
  });

  it('given twice is refused as a repeated parameter', async () => {
    const { orgId, users } = await workspace({ credits: 5 });

    const answer = await call(run, {
      method: 'POST',
      url: `/social/${POSTS}?organization_id=${orgId}&fields=items&fields=has_more`,
      token: tokenFor(users.editor),
      body: INPUT,
    });

    expect(answer.status).toBe(400);
    expect(answer.body.data.issues).toEqual([{ path: ['query', 'fields'], code: 'repeated', message: 'must be given once' }]);
  });

  it('quotes the same with valid fields as without', async () => {
    const { orgId, users } = await workspace({ credits: 5 });

    const [without, withFields] = await Promise.all([quotePosts(orgId, users.editor), quotePosts(orgId, users.editor, 'items.*.id')]);

    expect(withFields.status).toBe(200);
    expect(withFields.body).toEqual(without.body);
  });
});

describe('a cached result read again with other fields', () => {
  it('costs nothing and calls no provider: fields are not part of the cache key', async () => {
    // Prepare: a first run asks for too little, and pays.
    const { orgId, users } = await workspace({ credits: 5 });
    const whole = (await wholeOutput(POSTS, INPUT)) as Page;
    const cache = { 'cache-control': 'max-age=3600' };

    // Act
    const { result, calls } = await providerCalls(async () => {
      const first = await runPosts(orgId, users.editor, 'items.*.id', cache);
      const more = await runPosts(orgId, users.editor, 'items.*.id,items.*.text,items.*.metrics.likes,next_cursor', cache);
      const all = await runPosts(orgId, users.editor, undefined, cache);
      return { first, more, all };
    });

    // Assess
    expect(calls).toBe(1);
    expect(result.first.headers['credits-charged']).toBe('1');
    expect(result.first.body).toEqual({ items: whole.items.map((post) => ({ id: post.id })) });
    expect(result.more.headers).toMatchObject({ 'credits-charged': '0', 'cache-status': 'workspace; hit' });
    expect(result.more.body).toEqual({
      items: whole.items.map((post) => ({ id: post.id, text: post.text, metrics: { likes: post.metrics.likes } })),
      next_cursor: whole.next_cursor,
    });
    expect(result.all.headers['credits-charged']).toBe('0');
    expect(result.all.body).toEqual(whole);
    expect((await getOrganization(orgId))!.credits).toBe(4);
    expect(await charges(orgId)).toHaveLength(1);
  });
});

describe('fields and Idempotency-Key', () => {
  it('the same paths (spaces aside) replay the answer recorded; other fields, or none, are another request (409)', async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 5 });
    const key = { 'idempotency-key': uniqueId('key-') };

    // Act
    const first = await runPosts(orgId, users.editor, 'items.*.id,items.*.text', key);
    const again = await runPosts(orgId, users.editor, ' items.*.id , items.*.text ', key);
    const other = await runPosts(orgId, users.editor, 'items.*.id', key);
    const none = await runPosts(orgId, users.editor, undefined, key);

    // Assess
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers).toMatchObject({ 'idempotent-replayed': 'true', 'credits-charged': '0' });
    expect(again.raw).toBe(first.raw);
    const reused = {
      code: 'idempotency_key_reused',
      message: 'this Idempotency-Key was used with another operation or body',
    };
    expect([other.status, withoutRequestId(other.body)]).toEqual([409, reused]);
    expect([none.status, withoutRequestId(none.body)]).toEqual([409, reused]);
    expect(await charges(orgId)).toHaveLength(1);
  });
});

describe('a job with fields', () => {
  const jobsUrl = (orgId: string) => `/social/tiktok_profile/jobs?organization_id=${orgId}`;

  it('stores them, shows them, and every item keeps only those paths, charged as usual', async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 10 });
    const token = tokenFor(users.editor);
    const inputs = [{ handle: 'nasa' }, { handle: 'nike' }, { handle: 'sample_not_found' }];

    // Act
    const created = await call(createJob, { method: 'POST', url: jobsUrl(orgId), token, body: { inputs, fields: 'followers , id' } });
    await drainJobs();
    const page = await call(listItems, { url: `/social/jobs/${created.body.id}/items`, token });

    // Assess
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ status: 'queued', total: 3, fields: 'followers,id' });
    const wholes = (await Promise.all(inputs.slice(0, 2).map((input) => wholeOutput('tiktok_profile', input)))) as Record<
      string,
      unknown
    >[];
    expect(page.body.items.map((item: Record<string, unknown>) => [item.status, item.output, item.charged])).toEqual([
      ['succeeded', { id: wholes[0]!.id, followers: wholes[0]!.followers }, 1],
      ['succeeded', { id: wholes[1]!.id, followers: wholes[1]!.followers }, 1],
      ['failed', null, 0],
    ]);
    expect(ledgerProblems(await readLedger(orgId), 2)).toEqual([]);
  });

  it('refuses bad fields with a 400 naming body.fields, and creates no job', async () => {
    const { orgId, users } = await workspace({ credits: 10 });

    const answer = await call(createJob, {
      method: 'POST',
      url: jobsUrl(orgId),
      token: tokenFor(users.editor),
      body: { inputs: [{ handle: 'nasa' }, { handle: 7 }], fields: 'id,folowers' },
    });

    expect(answer.status).toBe(400);
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'validation_failed',
      message: 'body.inputs.1.handle: must be a string, not a number',
      data: {
        issues: [
          { path: ['body', 'inputs', 1, 'handle'], code: 'invalid_type', message: 'must be a string, not a number' },
          {
            path: ['body', 'fields'],
            code: 'unknown_field',
            message: '"folowers": the output has no field "folowers"; did you mean "followers"?',
          },
        ],
      },
    });
    expect((await listActiveJobs()).filter((job) => job.orgId === orgId)).toEqual([]);
  });

  it('is part of the job key’s identity', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const token = tokenFor(users.editor);
    const headers = { 'idempotency-key': uniqueId('job-key-') };
    const body = { inputs: [{ handle: 'nasa' }], fields: 'id' };

    const first = await call(createJob, { method: 'POST', url: jobsUrl(orgId), token, body, headers });
    const again = await call(createJob, { method: 'POST', url: jobsUrl(orgId), token, body: { ...body, fields: ' id ' }, headers });
    const other = await call(createJob, { method: 'POST', url: jobsUrl(orgId), token, body: { ...body, fields: 'followers' }, headers });
    await drainJobs();

    expect(first.status).toBe(202);
    expect([again.status, again.body.id, again.headers['idempotent-replayed']]).toEqual([202, first.body.id, 'true']);
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('idempotency_key_reused');
  });
});

describe('_fields on the MCP tools', () => {
  it('an operation tool answers only those paths, as structured content and as its text', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const whole = (await wholeOutput(POSTS, INPUT)) as Page;

    const answer = await mcp(orgId, users.editor, POSTS, { ...INPUT, _fields: 'items.*.id, has_more' });

    const { result } = answer.body;
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({ items: whole.items.map((post) => ({ id: post.id })), has_more: whole.has_more });
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(result.structuredContent) }]);
    expect(result._meta.credits_charged).toBe(1);
  });

  it.each([
    [
      'a path the output does not have',
      'items.*.bogus',
      'unknown_field',
      `"items.*.bogus": items.* has no field "bogus"; its fields: ${POST_FIELDS}`,
    ],
    ['not a string', 5, 'invalid_type', 'must be a string of comma-separated paths, e.g. "items.*.id,items.*.text"'],
  ])('%s: a tool error naming arguments._fields, nothing charged', async (_, fields, code, message) => {
    const { orgId, users } = await workspace({ credits: 5 });

    const answer = await mcp(orgId, users.editor, POSTS, { ...INPUT, _fields: fields });

    const { result } = answer.body;
    expect(result.isError).toBe(true);
    const { request_id: _requestId, ...body } = JSON.parse(result.content[0].text);
    expect(body).toEqual(refused(['arguments', '_fields'], { code, message }));
    expect((await getOrganization(orgId))!.credits).toBe(5);
  });

  it('start_job takes _fields for every item, and names _fields when they are bad', async () => {
    const { orgId, users } = await workspace({ credits: 5 });

    const started = await mcp(orgId, users.editor, 'start_job', { operation: 'x_profile', inputs: [{ handle: 'nasa' }], _fields: 'id' });
    const bad = await mcp(orgId, users.editor, 'start_job', { operation: 'x_profile', inputs: [{ handle: 'nasa' }], _fields: 'items' });
    await drainJobs();
    const read = await mcp(orgId, users.viewer, 'get_job', { job_id: started.body.result.structuredContent.id });

    expect(started.body.result.structuredContent).toMatchObject({ fields: 'id', total: 1 });
    const whole = (await wholeOutput('x_profile', { handle: 'nasa' })) as Record<string, unknown>;
    expect(read.body.result.structuredContent.items[0].output).toEqual({ id: whole.id });
    expect(bad.body.result.isError).toBe(true);
    const { request_id: _requestId, ...body } = JSON.parse(bad.body.result.content[0].text);
    expect(body.data.issues).toEqual([
      {
        path: ['arguments', '_fields'],
        code: 'unknown_field',
        message: expect.stringMatching(/^"items": the output has no field "items"; its fields: network, id/),
      },
    ]);
  });
});
