/**
 * What happens between the charge and the answer when something other than the provider goes
 * wrong: the function nearing its own timeout, the refund write failing, the balance read after
 * a successful run failing. Failures are injected at the SDK level; the table is DynamoDB Local.
 */
import { describe, expect, it, vi } from 'vitest';
import { handler } from '../../functions/run-social-operation.ts';
import { getOrganization } from '../../lib/db/organizations.ts';
import { listPendingRuns } from '../../lib/db/pending-runs.ts';
import { sampleProvider } from '../../lib/social/providers/sample.ts';
import { UpstreamError } from '../../lib/social/providers/types.ts';
import { uniqueId, workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { failCommands } from '../support/inject-failure.ts';
import { eventsOf, runUrl } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

const run = (orgId: string, user: string, headers: Record<string, string> = {}, target: typeof handler = handler) =>
  call(target, { method: 'POST', url: runUrl('tiktok_profile', orgId), token: tokenFor(user), body: { handle: 'nasa' }, headers });

/** Runs `act` with faults installed (each by its remover), removing them whatever happens. */
async function withFaults<T>(removers: (() => void)[], act: () => Promise<T>): Promise<T> {
  try {
    return await act();
  } finally {
    for (const remove of removers.reverse()) remove();
  }
}

describe('after the charge', () => {
  it('a function close to its own timeout cuts the provider call short and still refunds before it ends', async () => {
    // Prepare: 5 s left in the invocation (the provider gets what the 3 s refund reserve leaves,
    // less the charge: room for a busy machine's DynamoDB Local); the provider never answers
    // (PROVIDER_TIMEOUT_MS is 10 s by default).
    const { orgId, users } = await workspace({ credits: 5 });
    const deadline = Date.now() + 5_000;
    const nearTimeout: typeof handler = ((event: unknown, context: object) =>
      (handler as (event: unknown, context: object) => unknown)(event, {
        ...context,
        getRemainingTimeInMillis: () => deadline - Date.now(),
      })) as typeof handler;
    const spy = vi.spyOn(sampleProvider, 'run').mockImplementation(() => new Promise(() => undefined));

    // Act
    let answer: Awaited<ReturnType<typeof run>>;
    try {
      answer = await run(orgId, users.editor, {}, nearTimeout);
    } finally {
      spy.mockRestore();
    }

    // Assess: the refund was written within the invocation, not lost with it.
    expect(answer.status).toBe(500);
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'upstream_failed',
      message: 'the social data provider failed; the charge was refunded, retry with backoff',
    });
    expect((await getOrganization(orgId))!.credits).toBe(5);
    expect((await eventsOf(orgId)).map((event) => event.type)).toEqual([
      'credits.granted',
      'social_operation.charged',
      'social_operation.refunded',
    ]);
  });

  it('a refund that cannot be written: still 500 upstream_failed, without claiming the charge was refunded', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const spy = vi.spyOn(sampleProvider, 'run').mockRejectedValueOnce(new UpstreamError('upstream down'));
    let transactions = 0;
    // The first transaction is the charge; the second, the refund, fails.
    const stop = failCommands((command) => command === 'TransactWriteItemsCommand' && ++transactions === 2);

    let answer: Awaited<ReturnType<typeof run>>;
    try {
      answer = await run(orgId, users.editor);
    } finally {
      stop();
      spy.mockRestore();
    }

    expect(answer.status).toBe(500);
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'upstream_failed',
      message: 'the social data provider failed; the refund of its charge is delayed, do not retry before your balance is back',
    });
    expect((await getOrganization(orgId))!.credits).toBe(4);
  });

  it.each([
    ['without a key', undefined],
    ['with a key', 'key'],
  ])('%s: the balance read after a successful run failing still answers 200 with the output (the run was paid)', async (_case, withKey) => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 5 });
    const headers: Record<string, string> = withKey ? { 'Idempotency-Key': uniqueId('key-') } : {};
    let providerCalled = false;
    const original = sampleProvider.run.bind(sampleProvider);
    const spy = vi.spyOn(sampleProvider, 'run').mockImplementation(async (request) => {
      providerCalled = true;
      return original(request);
    });
    const stop = failCommands((command) => command === 'GetItemCommand' && providerCalled);

    // Act
    let answer: Awaited<ReturnType<typeof run>>;
    try {
      answer = await run(orgId, users.editor, headers);
    } finally {
      stop();
      spy.mockRestore();
    }

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ network: 'tiktok', username: 'nasa' });
    expect(answer.headers['credits-charged']).toBe('1');
    expect(answer.headers['credits-remaining']).toBeUndefined();
    expect((await getOrganization(orgId))!.credits).toBe(4);
    if (withKey) {
      const retry = await run(orgId, users.editor, headers);
      expect(retry.body).toEqual(answer.body);
      expect(retry.headers['idempotent-replayed']).toBe('true');
    }
  });

  it('a settle that loses once to a transaction on its pending run is retried: the run is settled, not left to the sweeper', async () => {
    // Prepare: without a key the settle is one DeleteItem; DynamoDB refuses a single-item write
    // on an item a transaction holds with TransactionConflictException, which the SDK does not retry.
    const { orgId, users } = await workspace({ credits: 5 });
    let deletes = 0;

    // Act
    const answer = await withFaults(
      [failCommands((command) => command === 'DeleteItemCommand' && ++deletes === 1, 'TransactionConflictException')],
      () => run(orgId, users.editor),
    );

    // Assess: delivered, paid once, and nothing left for the sweeper to refund.
    expect(answer.status).toBe(200);
    expect(deletes).toBe(2);
    expect(await listPendingRuns(orgId)).toEqual([]);
    expect((await getOrganization(orgId))!.credits).toBe(4);
  });

  it.each([
    ['without a key', undefined],
    ['with a key', 'key'],
  ])('%s: a charge made but not confirmed (its answer lost) is undone at once, so that "retry with backoff" is safe', async (_case, withKey) => {
    // Prepare: the charge transaction is applied, then DynamoDB's 500 ("may or may not have succeeded").
    const { orgId, users } = await workspace({ credits: 5 });
    const headers: Record<string, string> = withKey ? { 'Idempotency-Key': uniqueId('key-') } : {};
    let transactions = 0;

    // Act
    const answer = await withFaults(
      [
        failCommands((command) => command === 'TransactWriteItemsCommand' && ++transactions === 1, 'InternalServerError', {
          applied: true,
        }),
      ],
      () => run(orgId, users.editor, headers),
    );

    // Assess: the charge and its undo, nothing left pending; a retry (same key) runs and pays once.
    expect(answer.status).toBe(500);
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'internal_error',
      message: 'the request failed on the service side; retry with backoff',
    });
    expect((await getOrganization(orgId))!.credits).toBe(5);
    expect((await eventsOf(orgId)).map((event) => [event.type, event.description.replace(/evt_\S+/, 'evt')])).toEqual([
      ['credits.granted', 'Opening balance of 5 credits'],
      ['social_operation.charged', `tiktok_profile run by ${users.editor}`],
      ['social_operation.refunded', `tiktok_profile run by ${users.editor}: the charge could not be confirmed; charge evt refunded`],
    ]);
    expect(await listPendingRuns(orgId)).toEqual([]);
    const retry = await run(orgId, users.editor, headers);
    expect(retry.status).toBe(200);
    expect((await getOrganization(orgId))!.credits).toBe(4);
  });

  it('a charge not confirmed whose undo fails too: left to the sweeper, and the answer says not to retry yet', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    let transactions = 0;
    const lost = failCommands((command) => command === 'TransactWriteItemsCommand' && ++transactions === 1, 'InternalServerError', {
      applied: true,
    });
    // Inside the first: the second transaction (the undo) fails before it is sent.
    const undo = failCommands((command) => command === 'TransactWriteItemsCommand' && transactions >= 2);

    const answer = await withFaults([lost, undo], () => run(orgId, users.editor));

    expect(answer.status).toBe(500);
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'internal_error',
      message:
        'the request failed on the service side and its charge could not be confirmed; if it was made it is refunded automatically, do not retry before your balance is back',
    });
    expect(answer.headers['retry-after']).toBeUndefined();
    expect((await getOrganization(orgId))!.credits).toBe(4);
    expect((await listPendingRuns(orgId)).map((pending) => pending.cost)).toEqual([1]);
  });

  it('a charge refused before it was written (throttled) is not undone: nothing to refund, no second transaction', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    let transactions = 0;
    const answer = await withFaults(
      [failCommands((command) => command === 'TransactWriteItemsCommand' && ++transactions >= 1, 'ThrottlingException')],
      () => run(orgId, users.editor),
    );

    expect(answer.status).toBe(500);
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'internal_error',
      message: 'the request failed on the service side; retry with backoff',
    });
    expect(transactions).toBe(1);
    expect((await eventsOf(orgId)).map((event) => event.type)).toEqual(['credits.granted']);
  });
});
