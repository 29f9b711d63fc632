/**
 * Notification endpoints (docs/alerts.md): owners add, list and delete them, send a test event
 * and read each endpoint's deliveries. Through the handlers' real middleware on DynamoDB Local,
 * with real receivers on 127.0.0.1 and the webhooks queue drained with short backoffs.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { handler as createKey } from '../../functions/create-api-key.ts';
import { handler as createWebhook } from '../../functions/create-webhook.ts';
import { handler as deleteWebhook } from '../../functions/delete-webhook.ts';
import { handler as listDeliveries } from '../../functions/list-webhook-deliveries.ts';
import { handler as listWebhooks } from '../../functions/list-webhooks.ts';
import { handler as testWebhook } from '../../functions/test-webhook.ts';
import { publishEvent, resendDelivery } from '../../lib/alerts/endpoints.ts';
import { NotAnOwner } from '../../lib/db/memberships.ts';
import { deleteEndpoint, getEndpoint } from '../../lib/db/webhook-endpoints.ts';
import { WEBHOOK_ATTEMPTS } from '../../lib/webhooks/delivery.ts';
import { TEST_OPERATOR, uniqueId, workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { drainJobs } from '../support/jobs.ts';
import { captureOutput } from '../support/output.ts';
import { slowReceiver } from '../support/slow-receivers.ts';
import { tokenFor } from '../support/tokens.ts';
import { type Received, receiver } from './receivers.ts';

const hooksUrl = (orgId: string) => `/organizations/${orgId}/webhooks`;
const create = (orgId: string, token: string, body: unknown) => call(createWebhook, { method: 'POST', url: hooksUrl(orgId), token, body });
const sendTest = (orgId: string, token: string, id: string) =>
  call(testWebhook, { method: 'POST', url: `${hooksUrl(orgId)}/${id}/test`, token });
const deliveries = (orgId: string, token: string, id: string, query = '') =>
  call(listDeliveries, { url: `${hooksUrl(orgId)}/${id}/deliveries${query}`, token });
const drain = () => drainJobs({ webhookBackoffMs: 20 });
const output = captureOutput();

/** The Standard Webhooks check a receiver makes. */
const signedBy = (secret: string, delivery: Received): boolean => {
  const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${delivery.headers['webhook-id']}.${delivery.headers['webhook-timestamp']}.${delivery.body}`)
    .digest('base64');
  return String(delivery.headers['webhook-signature']).split(' ').includes(`v1,${expected}`);
};

describe('notification endpoints', () => {
  it('adds an endpoint (its secret shown once), lists it without the secret, tests it signed, logs the delivery', async () => {
    // Prepare
    const { orgId, users } = await workspace();
    const token = tokenFor(users.owner);
    const hook = await receiver([200]);

    // Act
    const created = await create(orgId, token, { url: hook.url, events: ['job.completed', 'credits.balance_low', 'job.completed'] });
    const fine = await create(orgId, token, { url: hook.url, events: ['spending_limit.threshold_reached', 'credits.balance_low'] });
    const listed = await call(listWebhooks, { url: hooksUrl(orgId), token });
    const tested = await sendTest(orgId, token, fine.body.id);
    await drain();
    const log = await deliveries(orgId, token, fine.body.id);

    // Assess
    expect(created.status).toBe(400);
    expect(fine.status).toBe(201);
    expect(fine.headers['cache-control']).toBe('no-store');
    expect(fine.body).toEqual({
      id: expect.stringMatching(/^whk_[0-9a-f]{32}$/),
      url: hook.url,
      events: ['credits.balance_low', 'spending_limit.threshold_reached'],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      created_at: expect.any(String),
    });
    expect(listed.body).toEqual({
      webhooks: [{ id: fine.body.id, url: hook.url, events: fine.body.events, created_at: fine.body.created_at }],
      next_cursor: null,
      has_more: false,
    });
    expect(tested.status).toBe(202);
    expect(tested.body).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      type: 'webhook.test',
      status: 'pending',
      attempts: 0,
      last_status_code: null,
      next_attempt_at: null,
      created_at: expect.any(String),
    });
    expect(hook.received).toHaveLength(1);
    const [delivery] = hook.received as [Received];
    expect(delivery.headers['webhook-id']).toBe(tested.body.id);
    expect(signedBy(fine.body.secret, delivery)).toBe(true);
    expect(JSON.parse(delivery.body)).toEqual({
      id: tested.body.id,
      type: 'webhook.test',
      created_at: tested.body.created_at,
      organization_id: orgId,
      data: { webhook_id: fine.body.id },
    });
    expect(log.body).toEqual({
      deliveries: [{ ...tested.body, status: 'delivered', attempts: 1, last_status_code: 200 }],
      next_cursor: null,
      has_more: false,
    });
  });

  it('refuses a bad url or events with 400 naming the field', async () => {
    const { orgId, users } = await workspace();
    const token = tokenFor(users.owner);
    const url = 'http://127.0.0.1:9/hooks';
    const answers = await Promise.all([
      create(orgId, token, { url: 'ftp://example.com/hooks', events: ['*'] }),
      create(orgId, token, { url: 'https://169.254.169.254/latest', events: ['*'] }),
      create(orgId, token, { url, events: [] }),
      create(orgId, token, { url, events: ['credits.low'] }),
      create(orgId, token, { url, events: ['*', 'job.completed'] }),
      create(orgId, token, { url, events: ['job.completed', 'job.completed'] }),
    ]);
    const named = answers.map((answer) => [answer.status, answer.body.code, answer.body.data.issues[0].path]);
    expect(named).toEqual([
      [400, 'validation_failed', ['body', 'url']],
      [400, 'validation_failed', ['body', 'url']],
      [400, 'validation_failed', ['body', 'events']],
      [400, 'validation_failed', ['body', 'events', 0]],
      [400, 'validation_failed', ['body', 'events']],
      [400, 'validation_failed', ['body', 'events']],
    ]);
    expect(withoutRequestId(answers[0]?.body ?? {})).toEqual({
      code: 'validation_failed',
      message: 'body.url: must be an https URL (or http on a loopback address)',
      data: {
        issues: [{ path: ['body', 'url'], code: 'invalid_webhook_url', message: 'must be an https URL (or http on a loopback address)' }],
      },
    });
    expect((await call(listWebhooks, { url: hooksUrl(orgId), token })).body.webhooks).toEqual([]);
  });

  it('deletes nothing for a caller who is not an owner when the delete is written (an owner demoted since the role check)', async () => {
    const { orgId, users } = await workspace();
    const created = await create(orgId, tokenFor(users.owner), { url: 'http://127.0.0.1:9/hooks', events: ['*'] });

    // Below the route's role check: the transaction itself holds the deleter to the owner role.
    await expect(deleteEndpoint(await getEndpoint(orgId, created.body.id), users.editor, TEST_OPERATOR, new Date())).rejects.toBeInstanceOf(
      NotAnOwner,
    );

    expect(await getEndpoint(orgId, created.body.id)).toMatchObject({ id: created.body.id });
    expect(await deleteEndpoint(await getEndpoint(orgId, created.body.id), users.owner, TEST_OPERATOR, new Date())).toBe(true);
    expect(await deleteEndpoint(await getEndpoint(orgId, created.body.id), users.owner, TEST_OPERATOR, new Date())).toBe(false);
  });

  it('refuses the 11th endpoint, also when they are created at once, and takes one again after a delete', async () => {
    // Prepare
    const { orgId, users } = await workspace();
    const token = tokenFor(users.owner);
    const body = { url: 'http://127.0.0.1:9/hooks', events: ['*'] };

    // Act
    const answers = await Promise.all(Array.from({ length: 14 }, () => create(orgId, token, body)));
    const created = answers.filter((answer) => answer.status === 201);
    const refused = answers.filter((answer) => answer.status === 409);
    const removed = await call(deleteWebhook, { method: 'DELETE', url: `${hooksUrl(orgId)}/${created[0]?.body.id}`, token });
    const again = await call(deleteWebhook, { method: 'DELETE', url: `${hooksUrl(orgId)}/${created[0]?.body.id}`, token });
    const after = await create(orgId, token, body);
    const page = await call(listWebhooks, { url: `${hooksUrl(orgId)}?limit=4`, token });

    // Assess
    expect(created).toHaveLength(10);
    expect(refused).toHaveLength(4);
    expect(withoutRequestId(refused[0]?.body ?? {})).toEqual({
      code: 'webhook_limit_reached',
      message: 'the organization has 10 notification endpoints, the most it may: delete one first',
      data: { max_webhooks: 10 },
    });
    expect(removed.status).toBe(204);
    expect(again.status).toBe(404);
    expect(after.status).toBe(201);
    expect(page.body.webhooks).toHaveLength(4);
    expect(page.body.has_more).toBe(true);
    const rest = await call(listWebhooks, { url: `${hooksUrl(orgId)}?limit=100&cursor=${page.body.next_cursor}`, token });
    expect(rest.body.webhooks).toHaveLength(6);
  });

  it('refuses other members (403), API keys (403 api_key_not_allowed) and non-members (404)', async () => {
    const { orgId, users } = await workspace();
    const owner = tokenFor(users.owner);
    const endpoint = await create(orgId, owner, { url: 'http://127.0.0.1:9/hooks', events: ['*'] });
    const key = await call(createKey, {
      method: 'POST',
      url: `/organizations/${orgId}/api-keys`,
      token: owner,
      body: { name: 'k', role: 'editor' },
    });
    const id = endpoint.body.id;
    const attempts = (token: string) =>
      Promise.all([
        create(orgId, token, { url: 'http://127.0.0.1:9/hooks', events: ['*'] }),
        call(listWebhooks, { url: hooksUrl(orgId), token }),
        call(deleteWebhook, { method: 'DELETE', url: `${hooksUrl(orgId)}/${id}`, token }),
        sendTest(orgId, token, id),
        deliveries(orgId, token, id),
      ]);

    const answers = {
      editor: await attempts(tokenFor(users.editor)),
      viewer: await attempts(tokenFor(users.viewer)),
      key: await attempts(key.body.token),
      stranger: await attempts(tokenFor(uniqueId('stranger_'))),
    };

    const forbidden = {
      code: 'forbidden',
      message: 'only owners of the organization can change it, its members and its keys',
    };
    for (const answer of [...answers.editor, ...answers.viewer])
      expect([answer.status, withoutRequestId(answer.body)]).toEqual([403, forbidden]);
    for (const answer of answers.key) expect([answer.status, answer.body.code]).toEqual([403, 'api_key_not_allowed']);
    for (const answer of answers.stranger) expect([answer.status, answer.body.code]).toEqual([404, 'not_found']);
    expect((await call(listWebhooks, { url: hooksUrl(orgId), token: owner })).body.webhooks).toHaveLength(1);
    expect((await sendTest(orgId, owner, `whk_${'0'.repeat(32)}`)).status).toBe(404);
  });
});

describe("an endpoint's deliveries", () => {
  it('retries a receiver that is down, delivers when it is back, the same webhook-id on every attempt', async () => {
    const { orgId, users } = await workspace();
    const token = tokenFor(users.owner);
    const hook = await receiver([503, 500, 200]);
    const endpoint = await create(orgId, token, { url: hook.url, events: ['*'] });

    const tested = await sendTest(orgId, token, endpoint.body.id);
    await drain();
    const log = await deliveries(orgId, token, endpoint.body.id);

    expect(hook.received.map((delivery) => delivery.headers['webhook-id'])).toEqual([tested.body.id, tested.body.id, tested.body.id]);
    expect(new Set(hook.received.map((delivery) => delivery.body)).size).toBe(1);
    expect(log.body.deliveries).toEqual([{ ...tested.body, status: 'delivered', attempts: 3, last_status_code: 200 }]);
  });

  it('is failed after the last attempt, visible in the log, counted in the alarmed metric, and an operator can resend it', async () => {
    const { orgId, users } = await workspace();
    const token = tokenFor(users.owner);
    const hook = await receiver([500, 500, 500, 500, 500, 500, 204]);
    const endpoint = await create(orgId, token, { url: hook.url, events: ['*'] });
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');

    const tested = await sendTest(orgId, token, endpoint.body.id);
    await drain();
    const failed = await deliveries(orgId, token, endpoint.body.id);
    const counted = output.records().filter((record) => record._aws && 'WebhookDeliveriesFailed' in record);
    vi.unstubAllEnvs();
    const resent = await resendDelivery(orgId, endpoint.body.id, tested.body.id);
    await drain();
    const delivered = await deliveries(orgId, token, endpoint.body.id);

    expect(hook.received).toHaveLength(WEBHOOK_ATTEMPTS + 1);
    expect(failed.body.deliveries).toEqual([{ ...tested.body, status: 'failed', attempts: WEBHOOK_ATTEMPTS, last_status_code: 500 }]);
    // Once, when the last attempt failed: not per attempt.
    expect(counted).toEqual([expect.objectContaining({ service: 'workspace-service', WebhookDeliveriesFailed: 1 })]);
    expect(resent).toEqual({ resent: { ...tested.body, status: 'pending', attempts: 0, last_status_code: null, next_attempt_at: null } });
    expect(delivered.body.deliveries).toEqual([{ ...tested.body, status: 'delivered', attempts: 1, last_status_code: 204 }]);
  });

  it('counts a redirect as a failed attempt, never followed: failed after the last, its status logged', async () => {
    const { orgId, users } = await workspace();
    const token = tokenFor(users.owner);
    const target = await receiver([200]);
    const hook = await receiver([302], { location: target.url });
    const endpoint = await create(orgId, token, { url: hook.url, events: ['*'] });

    const tested = await sendTest(orgId, token, endpoint.body.id);
    await drain();
    const log = await deliveries(orgId, token, endpoint.body.id);

    expect(hook.received).toHaveLength(WEBHOOK_ATTEMPTS);
    expect(target.received).toEqual([]);
    expect(log.body.deliveries).toEqual([{ ...tested.body, status: 'failed', attempts: WEBHOOK_ATTEMPTS, last_status_code: 302 }]);
  });

  it('cuts off a receiver that hangs at the attempt deadline, however it trickles, and retries it', async () => {
    vi.stubEnv('JOBS_WEBHOOK_TIMEOUT_MS', '300');
    const { orgId, users } = await workspace();
    const token = tokenFor(users.owner);
    // Its status line a byte every 100 ms on the first request, a 200 at once on the next.
    const hung = await slowReceiver({ phase: 'headers', intervalMs: 100, bytes: 60, slowRequests: 1 });
    try {
      const endpoint = await create(orgId, token, { url: hung.url, events: ['*'] });

      const tested = await sendTest(orgId, token, endpoint.body.id);
      await drain();
      const log = await deliveries(orgId, token, endpoint.body.id);

      expect(hung.connections).toHaveLength(2);
      const [first] = hung.connections;
      // Cut off near the 300 ms deadline; left to trickle, its 60 bytes would take 6 s. The margin
      // is for a busy machine, where the receiver hears of the close late.
      expect((first?.closedAt ?? Number.POSITIVE_INFINITY) - (first?.requestAt ?? 0)).toBeLessThan(300 + 2_000);
      expect(hung.connections.map((connection) => connection.webhookId)).toEqual([tested.body.id, tested.body.id]);
      expect(log.body.deliveries).toEqual([{ ...tested.body, status: 'delivered', attempts: 2, last_status_code: 200 }]);
    } finally {
      vi.unstubAllEnvs();
      await hung.close();
    }
  });

  it('sends an event once per subscribed endpoint, however often it is published; a deleted endpoint gets nothing', async () => {
    const { orgId, users } = await workspace();
    const token = tokenFor(users.owner);
    const [all, lows, jobs] = await Promise.all([receiver(), receiver(), receiver()]);
    await create(orgId, token, { url: all.url, events: ['*'] });
    await create(orgId, token, { url: lows.url, events: ['credits.balance_low'] });
    const jobsEndpoint = await create(orgId, token, { url: jobs.url, events: ['job.completed'] });
    const event = {
      id: `evt_${'a'.repeat(32)}`,
      type: 'credits.balance_low' as const,
      created_at: new Date().toISOString(),
      organization_id: orgId,
      data: { balance: 4, low_balance: 5 },
    };

    await Promise.all(Array.from({ length: 5 }, () => publishEvent(event)));
    await drain();
    await publishEvent(event);
    await call(deleteWebhook, { method: 'DELETE', url: `${hooksUrl(orgId)}/${jobsEndpoint.body.id}`, token });
    await publishEvent({ ...event, id: `evt_${'b'.repeat(32)}`, type: 'job.completed', data: {} });
    await drain();

    expect(all.events()).toEqual([event, expect.objectContaining({ type: 'job.completed' })]);
    expect(lows.events()).toEqual([event]);
    expect(jobs.received).toEqual([]);
    expect((await deliveries(orgId, token, jobsEndpoint.body.id)).status).toBe(404);
  });
});
