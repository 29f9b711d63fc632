import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { handler } from '../../functions/run-social-operation.ts';
import { db, tableName } from '../../lib/db/client.ts';
import { recordKey } from '../../lib/db/idempotency.ts';
import { getOrganization } from '../../lib/db/organizations.ts';
import { sampleProvider } from '../../lib/social/providers/sample.ts';
import { UpstreamError } from '../../lib/social/providers/types.ts';
import { uniqueId, workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { eventsOf, runUrl } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

const run = (
  orgId: string,
  user: string,
  key: string | undefined,
  body: unknown = { handle: 'nasa', count: 5 },
  operation = 'x_user_posts',
) =>
  call(handler, {
    method: 'POST',
    url: runUrl(operation, orgId),
    token: tokenFor(user),
    body,
    headers: key === undefined ? {} : { 'Idempotency-Key': key },
  });

const charges = async (orgId: string) => (await eventsOf(orgId)).filter((event) => event.type === 'social_operation.charged').length;

describe('Idempotency-Key on POST /social/{operation}', () => {
  it('a retry with the same key and body replays the first response and is not charged again', async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 10 });
    const key = uniqueId('key-');

    // Act
    const first = await run(orgId, users.editor, key);
    const retry = await run(orgId, users.editor, key);

    // Assess
    expect(first.status).toBe(200);
    expect(first.headers['credits-charged']).toBe('1');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers['credits-charged']).toBe('0');
    expect((await getOrganization(orgId))!.credits).toBe(9);
    expect(await charges(orgId)).toBe(1);
  });

  it('the same body with keys in another order is the same request', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const key = uniqueId('key-');
    const first = await run(orgId, users.editor, key, { handle: 'nasa', count: 5 });
    const retry = await run(orgId, users.editor, key, { count: 5, handle: 'nasa' });
    expect(retry.body).toEqual(first.body);
    expect(await charges(orgId)).toBe(1);
  });

  it.each([
    ['another body', { handle: 'esa', count: 5 }, 'x_user_posts'],
    ['another operation', { handle: 'nasa' }, 'x_profile'],
  ])('the same key with %s → 409 idempotency_key_reused, uncharged', async (_case, body, operation) => {
    const { orgId, users } = await workspace({ credits: 10 });
    const key = uniqueId('key-');
    await run(orgId, users.editor, key);
    const reused = await run(orgId, users.editor, key, body, operation);
    expect(reused.status).toBe(409);
    expect(withoutRequestId(reused.body)).toEqual({
      code: 'idempotency_key_reused',
      message: 'this Idempotency-Key was used with another operation or body',
    });
    expect(await charges(orgId)).toBe(1);
  });

  it('concurrent requests with one key charge once; each gets the response or a 409 to retry', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const key = uniqueId('key-');
    const answers = await Promise.all(Array.from({ length: 10 }, () => run(orgId, users.editor, key)));
    const succeeded = answers.filter((answer) => answer.status === 200);
    const pending = answers.filter((answer) => answer.status === 409);
    expect(succeeded.length + pending.length).toBe(10);
    expect(succeeded.length).toBeGreaterThanOrEqual(1);
    for (const answer of succeeded) expect(answer.body).toEqual(succeeded[0]!.body);
    for (const answer of pending) {
      expect(withoutRequestId(answer.body)).toEqual({
        code: 'idempotency_key_reused',
        message: 'a request with this Idempotency-Key is still in progress; retry shortly',
      });
      expect(answer.headers['retry-after']).toBe('1');
    }
    expect(await charges(orgId)).toBe(1);
    expect((await getOrganization(orgId))!.credits).toBe(9);
    // Once the first has finished, a retry replays it.
    const retry = await run(orgId, users.editor, key);
    expect(retry.body).toEqual(succeeded[0]!.body);
  });

  it('keys are scoped per caller: two members may use the same key', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const key = uniqueId('key-');
    expect((await run(orgId, users.editor, key)).status).toBe(200);
    expect((await run(orgId, users.owner, key, { handle: 'esa', count: 5 })).status).toBe(200);
    expect(await charges(orgId)).toBe(2);
  });

  it('without a key, every request is charged', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    await run(orgId, users.editor, undefined);
    await run(orgId, users.editor, undefined);
    expect(await charges(orgId)).toBe(2);
  });

  it('a run that was refunded frees its key: the retry runs and is charged once', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const key = uniqueId('key-');
    const spy = vi.spyOn(sampleProvider, 'run').mockRejectedValueOnce(new UpstreamError('upstream down'));
    try {
      const failed = await run(orgId, users.editor, key);
      expect(failed.status).toBe(500);
      expect(failed.body.code).toBe('upstream_failed');
    } finally {
      spy.mockRestore();
    }
    const retry = await run(orgId, users.editor, key);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect((await eventsOf(orgId)).map((event) => [event.type, event.amount])).toEqual([
      ['credits.granted', 10],
      ['social_operation.charged', -1],
      ['social_operation.refunded', 1],
      ['social_operation.charged', -1],
    ]);
    expect((await getOrganization(orgId))!.credits).toBe(9);
  });

  it('a refused run (402) does not take the key', async () => {
    const { orgId, users } = await workspace({ credits: 0 });
    const key = uniqueId('key-');
    expect((await run(orgId, users.editor, key)).status).toBe(402);
    await (await import('../../lib/billing/grants.ts')).grantCredits(orgId, 1);
    expect((await run(orgId, users.editor, key)).status).toBe(200);
  });

  it('after 24 hours the key is free again', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const key = uniqueId('key-');
    await run(orgId, users.editor, key);
    // Age the record past its expiry (DynamoDB TTL deletes it some time later; reads ignore it at once).
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: recordKey(orgId, users.editor, key),
        UpdateExpression: 'SET expires_at = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    const again = await run(orgId, users.editor, key, { handle: 'esa', count: 5 });
    expect(again.status).toBe(200);
    expect(await charges(orgId)).toBe(2);
  });

  it.each([
    ['', 'empty', 'invalid_format'],
    ['x'.repeat(256), 'too long', 'too_big'],
    ['has space', 'with a space', 'invalid_format'],
  ])('a key that is %j (%s) → 400 naming the header', async (key, _case, code) => {
    const { orgId, users } = await workspace({ credits: 10 });
    const answer = await run(orgId, users.editor, key);
    expect(answer.status).toBe(400);
    expect(answer.body.data.issues).toEqual([
      {
        path: ['header', 'idempotency-key'],
        code,
        message: 'must be 1 to 255 printable ASCII characters without spaces (a UUID is recommended)',
      },
    ]);
  });
});
