/**
 * Slow webhook receivers (docs/jobs.md, "Webhooks"): an attempt has one deadline for the whole
 * exchange however the receiver trickles, never outlives its message's visibility (so it is
 * never sent twice at once), and no number of slow receivers of some organizations delays
 * another organization's items or webhooks by more than a few seconds. Real receivers on
 * 127.0.0.1 that hold back each byte (test/support/slow-receivers.ts); the deadlines are
 * shortened by configuration to keep the file fast.
 *
 * In the long tier (`npm run test:long`, vitest.config.ts): its receivers are slow for seconds by design.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { handler as createJob } from '../../functions/create-social-job.ts';
import { getJob } from '../../lib/db/jobs.ts';
import { workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { drainJobs, startLocalWorkers } from '../support/jobs.ts';
import { type SlowReceiver, slowReceiver } from '../support/slow-receivers.ts';
import { tokenFor } from '../support/tokens.ts';

const cleanups: (() => Promise<void>)[] = [];
const savedEnv = { ...process.env };
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  for (const name of ['JOBS_WEBHOOK_TIMEOUT_MS', 'JOBS_WEBHOOK_BACKOFF_MS']) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
});

const receiving = async (trickle: Parameters<typeof slowReceiver>[0]): Promise<SlowReceiver> => {
  const receiver = await slowReceiver(trickle);
  cleanups.push(() => receiver.close());
  return receiver;
};

/** An editor's job of `items` x_profile inputs, its webhook at `webhookUrl`. */
async function startJob(webhookUrl: string, items = 1, org?: { orgId: string; token: string }) {
  const { orgId, token } = org ?? (await newOrganization());
  const created = await call(createJob, {
    method: 'POST',
    url: `/social/x_profile/jobs?organization_id=${orgId}`,
    token,
    body: { inputs: Array.from({ length: items }, (_, i) => ({ handle: `creator${i}` })), webhook_url: webhookUrl },
  });
  expect(created.status).toBe(202);
  return { jobId: created.body.id as string, orgId, token };
}

async function newOrganization() {
  const { orgId, users } = await workspace({ credits: 100 });
  return { orgId, token: tokenFor(users.editor) };
}

/** Each attempt's connection, from its request to its close (ms). */
const heldFor = (receiver: SlowReceiver) => receiver.connections.map((c) => (c.closedAt ?? Date.now()) - (c.requestAt ?? c.openedAt));

describe('an attempt has one deadline, however the receiver trickles', () => {
  it('a receiver that answers 200 at once, then its body a byte every 100 ms: cut by the deadline, delivered', async () => {
    process.env.JOBS_WEBHOOK_TIMEOUT_MS = '500';
    const receiver = await receiving({ phase: 'body', status: 200, intervalMs: 100, bytes: 60 });

    const { jobId } = await startJob(receiver.url);
    await drainJobs();

    expect(receiver.connections).toHaveLength(1);
    expect(heldFor(receiver)[0]).toBeLessThan(500 + 400);
    expect(await getJob(jobId)).toMatchObject({ webhook_status: 'delivered', webhook_attempts: 1 });
  });

  it.each([
    ['its status line and headers a byte every 100 ms', { phase: 'headers' as const, intervalMs: 100, bytes: 60 }],
    ['500 at once, then its body a byte every 100 ms', { phase: 'body' as const, status: 500, intervalMs: 100, bytes: 60 }],
  ])('a receiver that sends %s: each attempt cut by the deadline, failed, retried, given up', async (_name, trickle) => {
    process.env.JOBS_WEBHOOK_TIMEOUT_MS = '300';
    const receiver = await receiving(trickle);

    const { jobId } = await startJob(receiver.url);
    await drainJobs({ webhookBackoffMs: 20 });

    expect(receiver.connections).toHaveLength(6);
    for (const held of heldFor(receiver)) expect(held).toBeLessThan(300 + 400);
    expect(await getJob(jobId)).toMatchObject({ webhook_status: 'failed', webhook_attempts: 6 });
  });

  it('never outlives its message: with a visibility timeout shorter than the webhook timeout, never two attempts at once', async () => {
    // The deadline would allow 5 s; the message comes back after 1.5 s. The first request trickles for 3 s.
    process.env.JOBS_WEBHOOK_TIMEOUT_MS = '5000';
    const receiver = await receiving({ phase: 'headers', intervalMs: 100, bytes: 30, slowRequests: 1 });

    const { jobId } = await startJob(receiver.url);
    await drainJobs({ webhookBackoffMs: 20, webhookVisibilityTimeoutMs: 1_500 });

    expect(receiver.mostAtOnceWithOneId()).toBe(1);
    expect(receiver.connections).toHaveLength(2);
    expect(heldFor(receiver)[0]).toBeLessThan(1_500);
    expect(await getJob(jobId)).toMatchObject({ webhook_status: 'delivered', webhook_attempts: 2 });
  });
});

describe("slow receivers of some organizations never hold another organization's work", () => {
  /** A receiver answering 200 at once, noting when each request arrived. */
  async function promptReceiver(): Promise<{ url: string; arrivals: number[] }> {
    const arrivals: number[] = [];
    const server: Server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        arrivals.push(Date.now());
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/prompt`, arrivals };
  }

  const WORKERS = 8; // npm start's JOBS_WORKER_CONCURRENCY
  /** How late another organization's 1-item job and its webhook may be: "a few seconds". */
  const BOUND_MS = 3_000;

  it(`${2 * WORKERS} receivers of four organizations trickling their answers: a fifth organization's job and webhook each within ${BOUND_MS} ms`, async () => {
    // Each slow attempt may last 8 s: only isolation, not the deadline, keeps the others on time.
    process.env.JOBS_WEBHOOK_TIMEOUT_MS = '8000';
    const stop = startLocalWorkers();
    cleanups.push(stop);
    const slow = await receiving({ phase: 'headers', intervalMs: 250, bytes: 60 });
    for (let org = 0; org < 4; org += 1) {
      const organization = await newOrganization();
      for (let job = 0; job < (2 * WORKERS) / 4; job += 1) await startJob(slow.url, 1, organization);
    }
    // At least as many slow attempts held open as there are workers.
    for (const give = Date.now() + 10_000; slow.open() < WORKERS && Date.now() < give; ) await new Promise((r) => setTimeout(r, 20));
    expect(slow.open()).toBeGreaterThanOrEqual(WORKERS);

    const prompt = await promptReceiver();
    const created = Date.now();
    const { jobId } = await startJob(prompt.url);
    let endedAfter = Number.POSITIVE_INFINITY;
    for (const give = created + 15_000; Date.now() < give; await new Promise((r) => setTimeout(r, 20))) {
      const job = await getJob(jobId);
      if (job?.status === 'completed' && endedAfter === Number.POSITIVE_INFINITY) endedAfter = Date.parse(job.completed_at ?? '') - created;
      if (prompt.arrivals.length > 0) break;
    }
    const webhookAfter = (prompt.arrivals[0] ?? Number.POSITIVE_INFINITY) - created;

    const figures = JSON.stringify({ endedAfterMs: endedAfter, webhookAfterMs: webhookAfter, slowOpen: slow.open() });
    expect(endedAfter, figures).toBeLessThanOrEqual(BOUND_MS);
    expect(webhookAfter, figures).toBeLessThanOrEqual(BOUND_MS);
  }, 30_000);
});
