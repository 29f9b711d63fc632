/**
 * A job's webhook (docs/jobs.md, "Webhooks"): when the job ends, its URL receives one signed
 * `job.completed` event, retried with backoff while the receiver fails, the outcome on the job.
 * Real HTTP servers on 127.0.0.1 as receivers (loopback is allowed in tests, as under npm start),
 * and the Standard Webhooks signature checked as a receiver checks it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { handler as cancelJob } from '../../functions/cancel-social-job.ts';
import { handler as createJob } from '../../functions/create-social-job.ts';
import { handler as getJob } from '../../functions/get-social-job.ts';
import { addressRefusal, checkWebhookUrl } from '../../lib/webhooks/addresses.ts';
import { workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { drainJobs } from '../support/jobs.ts';
import { tokenFor } from '../support/tokens.ts';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A receiver on 127.0.0.1 answering the statuses given, one per request (the last one thereafter). */
async function receiver(statuses: number[]): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const status = statuses[Math.min(received.length - 1, statuses.length - 1)] ?? 200;
      response.writeHead(status, status === 302 ? { location: 'http://127.0.0.1:1/elsewhere' } : {}).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/jobs`, received };
}

/** Checks a delivery as a Standard Webhooks receiver does: HMAC-SHA256 of "id.timestamp.body" with the secret's key. */
function verified(secret: string, delivery: Received): boolean {
  const id = String(delivery.headers['webhook-id']);
  const timestamp = String(delivery.headers['webhook-timestamp']);
  const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${id}.${timestamp}.${delivery.body}`)
    .digest();
  return String(delivery.headers['webhook-signature'])
    .split(' ')
    .some((signature) => {
      const [version, value] = signature.split(',');
      const given = Buffer.from(value ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** Webhook retries 40 ms apart. */
const drain = () => drainJobs({ webhookBackoffMs: 40, visibilityTimeoutMs: 2_000 });

const create = (orgId: string, token: string, webhookUrl: string, inputs = [{ handle: 'nasa' }, { handle: 'nike' }]) =>
  call(createJob, {
    method: 'POST',
    url: `/social/x_profile/jobs?organization_id=${orgId}`,
    token,
    body: { inputs, webhook_url: webhookUrl },
  });

describe('job webhooks', () => {
  it('retries a receiver that answers 500, with backoff, until its 200; signed, the outcome on the job', async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 10 });
    const token = tokenFor(users.editor);
    const hook = await receiver([500, 200]);

    // Act
    const created = await create(orgId, token, hook.url);
    await drain();

    // Assess
    expect(created.status).toBe(202);
    expect(created.body.webhook).toEqual({ url: hook.url, status: null, attempts: 0 });
    const secret: string = created.body.webhook_secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(hook.received).toHaveLength(2);
    const [first, second] = hook.received;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(40);
    for (const delivery of hook.received) {
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['webhook-id']).toBe(`msg_${created.body.id}`);
      expect(Number(delivery.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
      expect(verified(secret, delivery)).toBe(true);
      expect(verified('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', delivery)).toBe(false);
    }
    const event = JSON.parse(second?.body ?? '{}');
    expect(event).toEqual({
      type: 'job.completed',
      timestamp: expect.any(String),
      data: expect.objectContaining({ id: created.body.id, status: 'completed', succeeded: 2, failed: 0, pending: 0, charged: 2 }),
    });
    const job = await call(getJob, { url: `/social/jobs/${created.body.id}`, token });
    expect(job.body.webhook).toEqual({ url: hook.url, status: 'delivered', attempts: 2 });
    expect(job.body).not.toHaveProperty('webhook_secret');
  });

  it("sends the event's time as the payload's timestamp: the job's end, the same on every attempt", async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const token = tokenFor(users.editor);
    const hook = await receiver([500, 500, 200]);

    const created = await create(orgId, token, hook.url, [{ handle: 'nasa' }]);
    await drain();

    const job = await call(getJob, { url: `/social/jobs/${created.body.id}`, token });
    expect(hook.received).toHaveLength(3);
    const [first, second, third] = hook.received.map((delivery) => delivery.body);
    expect(JSON.parse(first ?? '{}').timestamp).toBe(job.body.completed_at);
    // The same bytes on every attempt: only the webhook-timestamp header (the attempt's time) differs.
    expect([second, third]).toEqual([first, first]);
  });

  it('gives up after 5 retries (6 attempts), and does not follow a redirect', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const token = tokenFor(users.editor);
    const hook = await receiver([302]);
    const created = await create(orgId, token, hook.url, [{ handle: 'nasa' }]);
    await drain();
    expect(hook.received).toHaveLength(6);
    const job = await call(getJob, { url: `/social/jobs/${created.body.id}`, token });
    expect(job.body.webhook).toEqual({ url: hook.url, status: 'failed', attempts: 6 });
  });

  it('sends the webhook of a job ended by a cancel, once', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const token = tokenFor(users.editor);
    const hook = await receiver([200]);
    const created = await create(orgId, token, hook.url);
    const cancelled = await call(cancelJob, { method: 'POST', url: `/social/jobs/${created.body.id}/cancel`, token });
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelled: 2, webhook: { status: 'pending', attempts: 0 } });
    await drain();
    expect(hook.received).toHaveLength(1);
    expect(JSON.parse(hook.received[0]?.body ?? '{}').data).toMatchObject({ status: 'cancelled', cancelled: 2, charged: 0 });
  });
});

describe('webhook URLs', () => {
  it.each([
    ['http://127.0.0.1:8080/hook', 'must be an https URL'],
    [
      'https://localhost/hook',
      'its host localhost resolves to 127.0.0.1, which is a loopback address, which this deployment does not call',
    ],
    ['https://[::1]/hook', 'its host is a loopback address, which this deployment does not call'],
    ['https://0.0.0.0/hook', 'its host is a private, link-local or otherwise non-public address'],
    ['https://100.64.0.1/hook', 'its host is a private, link-local or otherwise non-public address'],
    ['https://[fd00:ec2::254]/hook', 'its host is a private, link-local or otherwise non-public address'],
  ])('refuses %s where loopback is not allowed (deployed): %s', async (url, reason) => {
    await expect(checkWebhookUrl(url, false)).rejects.toThrow(reason);
  });

  it.each([
    // NAT64 (RFC 6052's well-known prefix, and RFC 8215's local-use one) of refused IPv4 addresses.
    'https://[64:ff9b::a9fe:a9fe]/hook',
    'https://[64:ff9b::169.254.169.254]/hook',
    'https://[64:ff9b::10.0.0.1]/hook',
    'https://[64:ff9b::7f00:1]/hook',
    'https://[64:ff9b:1::808:808]/hook',
    // IPv4-mapped, in the hexadecimal form URLs normalize it to.
    'https://[::ffff:a9fe:a9fe]/hook',
    'https://[::ffff:10.1.2.3]/hook',
    // Documentation (RFC 5737, RFC 3849, RFC 9637) and benchmarking (RFC 2544, RFC 5180).
    'https://192.0.2.1/hook',
    'https://198.51.100.7/hook',
    'https://203.0.113.9/hook',
    'https://[2001:db8::1]/hook',
    'https://[3fff::1]/hook',
    'https://198.18.0.1/hook',
    'https://198.19.255.254/hook',
    'https://[2001:2::1]/hook',
    // The rest of the special-purpose registries: 6to4 relay anycast, IPv4-compatible, discard-only,
    // Teredo, ORCHIDv2, 6to4, site-local, SRv6 SIDs, broadcast.
    'https://192.88.99.1/hook',
    'https://[::10.0.0.1]/hook',
    'https://[100::1]/hook',
    'https://[2001::a9fe:a9fe]/hook',
    'https://[2001:20::1]/hook',
    'https://[2002:a9fe:a9fe::1]/hook',
    'https://[fec0::1]/hook',
    'https://[5f00::1]/hook',
    'https://255.255.255.255/hook',
  ])('refuses %s: a reserved, documentation, benchmarking or translated non-public address', async (url) => {
    await expect(checkWebhookUrl(url, false)).rejects.toThrow('its host is a private, link-local or otherwise non-public address');
    await expect(checkWebhookUrl(url, true)).rejects.toThrow('its host is a private, link-local or otherwise non-public address');
  });

  it('accepts the translated and mapped forms of a public address', async () => {
    await expect(checkWebhookUrl('https://[64:ff9b::5db8:d70e]/hook', false)).resolves.toMatchObject({ address: '64:ff9b::5db8:d70e' });
    await expect(checkWebhookUrl('https://[::ffff:93.184.215.14]/hook', false)).resolves.toMatchObject({ family: 6 });
    expect(addressRefusal('2a05:d014::1', false)).toBeNull();
  });

  it('accepts public https addresses and, where allowed, loopback http', async () => {
    await expect(checkWebhookUrl('https://93.184.215.14/hook', false)).resolves.toMatchObject({ address: '93.184.215.14', family: 4 });
    await expect(checkWebhookUrl('http://127.0.0.1:9/hook', true)).resolves.toMatchObject({ address: '127.0.0.1' });
    expect(addressRefusal('::ffff:169.254.169.254', true)).toBe('is a private, link-local or otherwise non-public address');
    expect(addressRefusal('2606:4700::1111', false)).toBeNull();
  });
});
