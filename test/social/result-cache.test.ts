/**
 * Cached results (docs/social-operations.md, "Cached results"): a run with `Cache-Control:
 * max-age=N` is answered from this organization's result of the same input if it is at most N
 * seconds old, at the operation's cached cost (0: no charge, no event), with `Cache-Status` and
 * `Age`; every fresh result is stored; results never cross organizations; a stored result that
 * cannot be decoded or no longer fits the output schema is a miss, and is replaced.
 */
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { handler as mcpHandler } from '../../functions/mcp.ts';
import { handler } from '../../functions/run-social-operation.ts';
import { db, tableName } from '../../lib/db/client.ts';
import { canonicalHash } from '../../lib/db/idempotency.ts';
import { resultCacheKey } from '../../lib/db/keys.ts';
import { getOrganization } from '../../lib/db/organizations.ts';
import { getCachedResult, MAX_STORED_RESULT_BYTES, putCachedResult } from '../../lib/db/result-cache.ts';
import { countRoundTrips } from '../../lib/db/round-trips.ts';
import { findOperation, validateOperationInput } from '../../lib/social/operations.ts';
import { sampleProvider } from '../../lib/social/providers/sample.ts';
import { workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { eventsOf, runUrl } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

const OPERATION = 'tiktok_profile';
const run = (orgId: string, user: string, headers: Record<string, string> = {}, body: unknown = { handle: 'nasa' }) =>
  call(handler, { method: 'POST', url: runUrl(OPERATION, orgId), token: tokenFor(user), body, headers });
const maxAge = (seconds: number | string) => ({ 'cache-control': `max-age=${seconds}` });

const keyOf = (orgId: string, input: unknown = { handle: 'nasa' }) => {
  const operation = findOperation(OPERATION);
  return resultCacheKey(orgId, operation.name, canonicalHash(validateOperationInput(operation, input)));
};

/** The provider's calls during `work`. */
async function providerCalls<T>(work: () => Promise<T>): Promise<{ result: T; calls: number }> {
  const spy = vi.spyOn(sampleProvider, 'run');
  try {
    const result = await work();
    return { result, calls: spy.mock.calls.length };
  } finally {
    spy.mockRestore();
  }
}

/**
 * `work` with the provider's calls held until `count` of them have arrived: runs that all reach
 * the provider read the cache before any of them could store a result.
 */
async function meetingAtTheProvider<T>(count: number, work: () => Promise<T>): Promise<T> {
  const original = sampleProvider.run.bind(sampleProvider);
  let arrived = 0;
  let resolve = () => {};
  const allArrived = new Promise<void>((settle) => {
    resolve = settle;
  });
  const spy = vi.spyOn(sampleProvider, 'run').mockImplementation(async (request) => {
    arrived += 1;
    if (arrived === count) resolve();
    await allArrived;
    return original(request);
  });
  try {
    return await work();
  } finally {
    spy.mockRestore();
  }
}

describe('a run with Cache-Control: max-age', () => {
  it('is answered from the result an earlier run stored: free, no event, one round trip, with Cache-Status and Age', async () => {
    // Prepare: a first run without the header pays and stores its result.
    const { orgId, users } = await workspace({ credits: 5 });
    const first = await run(orgId, users.editor);
    expect(first.status).toBe(200);
    expect(first.headers['cache-status']).toBe('workspace; fwd=bypass; stored');
    expect(first.headers['charge-id']).toMatch(/^evt_/);
    expect(first.headers.age).toBeUndefined();

    // Act
    const counter = countRoundTrips(db());
    const { result: hit, calls } = await providerCalls(() => run(orgId, users.editor, maxAge(3600))).finally(() => counter.stop());

    // Assess
    expect(hit.status).toBe(200);
    expect(hit.body).toEqual(first.body);
    expect(hit.headers).toMatchObject({ 'credits-charged': '0', 'credits-remaining': '4', 'cache-status': 'workspace; hit' });
    expect(Number(hit.headers.age)).toBeGreaterThanOrEqual(0);
    expect(Number(hit.headers.age)).toBeLessThan(60);
    expect(hit.headers['charge-id']).toBeUndefined();
    expect(calls).toBe(0);
    expect(counter.log.sequential).toBe(1);
    expect(counter.log.commands).toEqual(['UpdateItemCommand', 'GetItemCommand', 'GetItemCommand', 'GetItemCommand']);
    expect((await eventsOf(orgId)).map((event) => event.type)).toEqual(['credits.granted', 'social_operation.charged']);
    expect((await getOrganization(orgId))?.credits).toBe(4);
  });

  it('goes to the provider when nothing is stored (fwd=miss), and stores what it gets', async () => {
    const { orgId, users } = await workspace({ credits: 5 });

    const miss = await run(orgId, users.editor, maxAge(60));
    const hit = await run(orgId, users.editor, maxAge(60));

    expect(miss).toMatchObject({ status: 200, headers: { 'credits-charged': '1', 'cache-status': 'workspace; fwd=miss; stored' } });
    expect(hit).toMatchObject({ status: 200, headers: { 'credits-charged': '0', 'cache-status': 'workspace; hit' } });
    expect(hit.body).toEqual(miss.body);
  });

  it('goes to the provider when the stored result is older than max-age (fwd=request), and replaces it', async () => {
    // Prepare: a result stored two minutes ago.
    const { orgId, users } = await workspace({ credits: 5 });
    const before = await run(orgId, users.editor);
    await putCachedResult(keyOf(orgId), before.body, Date.now() - 120_000);

    // Act
    const old = await run(orgId, users.editor, maxAge(300));
    const tooOld = await run(orgId, users.editor, maxAge(60));
    const never = await run(orgId, users.editor, maxAge(0));

    // Assess
    expect(old.headers).toMatchObject({ 'cache-status': 'workspace; hit', 'credits-charged': '0' });
    expect(Number(old.headers.age)).toBeGreaterThanOrEqual(120);
    expect(tooOld.headers).toMatchObject({ 'cache-status': 'workspace; fwd=request; stored', 'credits-charged': '1' });
    expect(never.headers).toMatchObject({ 'cache-status': 'workspace; fwd=request; stored', 'credits-charged': '1' });
    expect(Date.now() - ((await getCachedResult(keyOf(orgId), Date.now()))?.storedAtMs ?? 0)).toBeLessThan(60_000);
  });

  it("never answers from another organization's result, nor from another input's", async () => {
    const a = await workspace({ credits: 5 });
    const b = await workspace({ credits: 5 });
    await run(a.orgId, a.users.editor);

    const otherOrg = await run(b.orgId, b.users.editor, maxAge(3600));
    const otherInput = await run(a.orgId, a.users.editor, maxAge(3600), { handle: 'esa' });

    expect(otherOrg.headers).toMatchObject({ 'cache-status': 'workspace; fwd=miss; stored', 'credits-charged': '1' });
    expect(otherInput.headers).toMatchObject({ 'cache-status': 'workspace; fwd=miss; stored', 'credits-charged': '1' });
  });

  it('matches inputs equal after validation (a leading "@" the schema accepts is the same handle only if it validates the same)', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const first = await run(orgId, users.editor, {}, { handle: 'nasa' });
    const same = await run(orgId, users.editor, maxAge(60), JSON.parse('{"handle":"nasa"}'));
    expect(same.headers['cache-status']).toBe('workspace; hit');
    expect(same.body).toEqual(first.body);
  });

  it.each([
    ['an undecodable item', { output_gzip: Buffer.from('not gzip') }],
    ['an output that no longer fits the schema', { output_gzip: (() => gzipJson({ network: 'tiktok' }))() }],
  ])('treats %s as a miss and replaces it, never serving it', async (_case, item) => {
    // Prepare: a broken item where the result would be.
    const { orgId, users } = await workspace({ credits: 5 });
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keyOf(orgId), ...item, stored_at_ms: Date.now(), expires_at: Math.floor(Date.now() / 1000) + 3600 },
      }),
    );

    // Act
    const answer = await run(orgId, users.editor, maxAge(3600));
    const after = await run(orgId, users.editor, maxAge(3600));

    // Assess
    expect(answer).toMatchObject({ status: 200, headers: { 'cache-status': 'workspace; fwd=miss; stored', 'credits-charged': '1' } });
    expect(answer.body).toMatchObject({ network: 'tiktok', username: 'nasa' });
    expect(after).toMatchObject({ status: 200, headers: { 'cache-status': 'workspace; hit' } });
    expect(after.body).toEqual(answer.body);
  });

  it.each([
    'no-cache',
    'max-age=86401',
    'max-age=-1',
    'max-age=abc',
    'max-age=60, private',
    'max-age=',
  ])('refuses Cache-Control "%s" with 400 naming the header, before any charge', async (value) => {
    const { orgId, users } = await workspace({ credits: 5 });
    const answer = await run(orgId, users.editor, { 'cache-control': value });
    expect(answer.status).toBe(400);
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'validation_failed',
      message: 'header.cache-control: must be max-age=<seconds>, 0 to 86400',
      data: {
        issues: [{ path: ['header', 'cache-control'], code: expect.any(String), message: 'must be max-age=<seconds>, 0 to 86400' }],
      },
    });
    expect((await getOrganization(orgId))?.credits).toBe(5);
  });

  it('answers a cached result at no cost even with no credits left, and still refuses a viewer (403 before anything)', async () => {
    const { orgId, users } = await workspace({ credits: 1 });
    await run(orgId, users.editor);

    const broke = await run(orgId, users.editor, maxAge(3600));
    const viewer = await run(orgId, users.viewer, maxAge(3600));

    expect(broke).toMatchObject({
      status: 200,
      headers: { 'cache-status': 'workspace; hit', 'credits-charged': '0', 'credits-remaining': '0' },
    });
    expect(viewer.status).toBe(403);
  });

  it('lets an Idempotency-Key replay win over the cache', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const first = await run(orgId, users.editor, { 'idempotency-key': 'k-1' });

    const again = await run(orgId, users.editor, { 'idempotency-key': 'k-1', ...maxAge(3600) });

    expect(again.headers).toMatchObject({ 'idempotent-replayed': 'true', 'credits-charged': '0' });
    expect(again.headers['cache-status']).toBeUndefined();
    expect(again.body).toEqual(first.body);
  });

  it('charges each of two concurrent misses once and a hit racing a miss not at all, each with a valid output', async () => {
    const { orgId, users } = await workspace({ credits: 10 });

    const misses = await meetingAtTheProvider(2, () =>
      Promise.all([run(orgId, users.editor, maxAge(60)), run(orgId, users.owner, maxAge(60))]),
    );
    const raced = await Promise.all([run(orgId, users.editor, maxAge(3600)), run(orgId, users.owner)]);

    for (const answer of [...misses, ...raced]) expect(answer.body).toMatchObject({ network: 'tiktok', username: 'nasa' });
    expect(misses.map((answer) => answer.headers['credits-charged'])).toEqual(['1', '1']);
    expect(raced.map((answer) => answer.headers['credits-charged'])).toEqual(['0', '1']);
    const charges = (await eventsOf(orgId)).filter((event) => event.type === 'social_operation.charged');
    expect(charges).toHaveLength(3);
    expect((await getOrganization(orgId))?.credits).toBe(7);
  });

  it("charges an operation's cached cost when it has one, with its own charge and event", async () => {
    const operation = findOperation(OPERATION) as { cachedCost: number };
    const { orgId, users } = await workspace({ credits: 5 });
    await run(orgId, users.editor);
    operation.cachedCost = 1;
    try {
      const hit = await run(orgId, users.editor, maxAge(3600));
      expect(hit.headers).toMatchObject({ 'cache-status': 'workspace; hit', 'credits-charged': '1', 'credits-remaining': '3' });
      expect(hit.headers['charge-id']).toMatch(/^evt_/);
      expect((await eventsOf(orgId)).filter((event) => event.type === 'social_operation.charged')).toHaveLength(2);
    } finally {
      operation.cachedCost = 0;
    }
  });
});

describe('storing results', () => {
  it('does not store a result too large for one item, and says so', async () => {
    const { orgId } = await workspace();
    const incompressible = { blob: randomText(MAX_STORED_RESULT_BYTES * 2) };
    expect(await putCachedResult(keyOf(orgId), incompressible, Date.now())).toBe('too-large');
    expect(await getCachedResult(keyOf(orgId), Date.now())).toBeNull();
  });

  it('drops a result past its 24 hours even before the table deletes it', async () => {
    const { orgId } = await workspace();
    await putCachedResult(keyOf(orgId), { any: 'thing' }, Date.now() - 25 * 3600_000);
    expect(await getCachedResult(keyOf(orgId), Date.now())).toBeNull();
  });
});

describe('MCP tools/call with _meta.max_age', () => {
  const mcp = (orgId: string, user: string, params: Record<string, unknown>) =>
    call(mcpHandler, {
      method: 'POST',
      url: `/mcp?organization_id=${orgId}`,
      token: tokenFor(user),
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params },
    });

  it('answers from the cache with the cache status and no charge in _meta', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    await run(orgId, users.editor);

    const answer = await mcp(orgId, users.editor, { name: OPERATION, arguments: { handle: 'nasa' }, _meta: { max_age: 3600 } });

    expect(answer.body.result._meta).toEqual({
      credits_charged: 0,
      credits_remaining: 4,
      cache_status: 'workspace; hit',
      age: expect.any(Number),
      sample_data: true,
      provider: 'sample',
    });
    expect(answer.body.result.structuredContent).toMatchObject({ username: 'nasa' });
  });

  it('refuses a _meta.max_age that is not 0 to 86400 seconds as a tool error naming it', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const answer = await mcp(orgId, users.editor, { name: OPERATION, arguments: { handle: 'nasa' }, _meta: { max_age: 'soon' } });
    expect(answer.body.result.isError).toBe(true);
    expect(JSON.parse(answer.body.result.content[0].text)).toMatchObject({
      code: 'validation_failed',
      data: { issues: [{ path: ['_meta', 'max_age'] }] },
    });
    expect((await getOrganization(orgId))?.credits).toBe(5);
  });
});

function gzipJson(value: unknown): Buffer {
  return gzipSync(JSON.stringify(value));
}

function randomText(length: number): string {
  return randomBytes(Math.ceil(length / 2))
    .toString('hex')
    .slice(0, length);
}
