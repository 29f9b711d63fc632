/**
 * `admin jobs active|requeue|recover` (scripts/admin/jobs.ts) against this file's table: the
 * active jobs an operator sees, `requeue`'s and `recover`'s usage (against a deployed table they
 * need its queues' URLs), `recover` ending a stalled job whose items were never written (which
 * sends nothing), and `recover` against the local stack: its queues through its server's SQS
 * endpoint, the stack being this file's table, an in-process local server and its embedded queues.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { handler as createJob } from '../../functions/create-social-job.ts';
import { getJob } from '../../lib/db/jobs.ts';
import { createSocialJob } from '../../lib/jobs/create-job.ts';
import { createLocalServer } from '../../lib/local/server.ts';
import { main } from '../../scripts/admin/main.ts';
import { workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { activeJobOf, drainJobs, jobsQueue, killItemWritesAfter, killNextSendAfter, webhooksQueue } from '../support/jobs.ts';
import { runAdmin } from '../support/processes.ts';
import { tokenFor } from '../support/tokens.ts';

const table = ['--table', process.env.TABLE_NAME ?? '', '--endpoint', process.env.DYNAMODB_ENDPOINT ?? '', '--region', 'us-east-1'];
/** `npm run admin` in a process of its own: for a command that points this process's queues elsewhere (a deployed queue URL). */
const admin = (...args: string[]) => runAdmin([...args, ...table]);
/**
 * The CLI's own `main` in this process, against this file's table, for the listing and the refusals
 * made before any queue is chosen: they change nothing here, and the six processes they were cost
 * the file about 0.7 CPU-s.
 */
async function inProcess(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main([...args, ...table], { out: (text) => (stdout += text), err: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

describe('admin jobs', () => {
  it('lists the active jobs with their counts, and refuses requeue without a deployed queue', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const created = await call(createJob, {
      method: 'POST',
      url: `/social/x_profile/jobs?organization_id=${orgId}`,
      token: tokenFor(users.editor),
      body: { inputs: [{ handle: 'nasa' }, { handle: 'nike' }], max_credits: 1 },
    });

    const [listed, local, bad] = await Promise.all([
      inProcess('jobs', 'active'),
      inProcess('jobs', 'requeue'),
      inProcess('jobs', 'requeue', '--queue-url', 'http://127.0.0.1/queue'),
    ]);

    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).jobs).toContainEqual({
      id: created.body.id,
      organization_id: orgId,
      operation: 'x_profile',
      status: 'queued',
      total: 2,
      queued: 2,
      running: 0,
      succeeded: 0,
      failed: 0,
      cancelled: 0,
      charged: 0,
      max_credits: 1,
      budget_spent: 0,
      cancel_requested: false,
      created_at: created.body.created_at,
      messages: 'sent',
    });
    expect(local.code).toBe(2);
    expect(local.stderr).toContain(
      "--queue-url is required against a deployed table (the stack's JobsQueueUrl; the local stack needs none)",
    );
    expect(bad.stderr).toContain('--queue-url must be an SQS queue URL');
  });

  it('recovers once what the schedule would: a job stalled past the threshold whose items were never written is cancelled', async () => {
    // Created ten minutes ago, its creation killed before its items were written.
    const { orgId, users } = await workspace({ credits: 5 });
    const kill = killItemWritesAfter(0);
    void createSocialJob({
      caller: { userId: users.editor },
      orgId,
      operationName: 'x_profile',
      inputs: [{ handle: 'nasa' }],
      now: new Date(Date.now() - 10 * 60_000),
    });
    await kill.reached;
    kill.remove();
    const jobId = await activeJobOf(orgId);

    const [listed, local, bad] = await Promise.all([
      inProcess('jobs', 'active'),
      inProcess('jobs', 'recover'),
      inProcess('jobs', 'recover', '--queue-url', 'https://example.com/queue'),
    ]);
    const recovered = await admin(
      'jobs',
      'recover',
      '--queue-url',
      'https://sqs.us-east-1.amazonaws.com/123456789012/jobs',
      '--webhooks-queue-url',
      'https://sqs.us-east-1.amazonaws.com/123456789012/webhooks',
    );

    expect(JSON.parse(listed.stdout).jobs).toContainEqual(expect.objectContaining({ id: jobId, status: 'queued', messages: 'sending' }));
    expect(local.code).toBe(2);
    expect(local.stderr).toContain(
      "--queue-url and --webhooks-queue-url are required against a deployed table (the stack's JobsQueueUrl and WebhooksQueueUrl; the local stack needs none)",
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--queue-url must be an SQS queue URL');
    expect({ code: recovered.code, stderr: recovered.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(recovered.stdout)).toEqual({ jobs: 0, messages: 0, cancelled: 1 });
    expect(await getJob(jobId)).toMatchObject({ status: 'cancelled', cancelled: 1, queued: 0 });
  });

  it('recovers against the local stack without a queue URL: its pending items and a cancelled job’s webhook go to the stack’s own queues', async () => {
    // Prepare: "the local stack" is this file's table, a local server answering SQS into this
    // process's embedded queues, and a .local/dev.json naming both.
    const server = createLocalServer(new Map(), { sqsBridge: true });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const cwd = mkdtempSync(join(tmpdir(), 'admin-jobs-'));
    mkdirSync(join(cwd, '.local'));
    writeFileSync(
      join(cwd, '.local', 'dev.json'),
      JSON.stringify({ baseUrl, dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT, tableName: process.env.TABLE_NAME }),
    );
    const hook = { received: [] as string[] };
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        hook.received.push(body);
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    // Two stalled jobs, ten minutes old: one whose creation died before sending its 2 messages,
    // one (with a webhook) whose creation died before writing its items.
    const { orgId, users } = await workspace({ credits: 5 });
    const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
    const killSends = killNextSendAfter(0);
    void createSocialJob({
      caller: { userId: users.editor },
      orgId,
      operationName: 'x_profile',
      inputs: [{ handle: 'nasa' }, { handle: 'nike' }],
      now: tenMinutesAgo,
    });
    await killSends.reached;
    const unsent = await activeJobOf(orgId);
    const killWrites = killItemWritesAfter(0);
    void createSocialJob({
      caller: { userId: users.editor },
      orgId,
      operationName: 'x_profile',
      inputs: [{ handle: 'esa' }],
      webhookUrl: hookUrl,
      now: tenMinutesAgo,
    });
    await killWrites.reached;
    killWrites.remove();
    const unwritten = await activeJobOf(orgId, [unsent]);
    const sent = { jobs: jobsQueue().stats.sent, webhooks: webhooksQueue().stats.sent };

    // Act
    const recovered = await runAdmin(['jobs', 'recover'], { cwd });
    await drainJobs();

    // Assess
    expect({ code: recovered.code, stderr: recovered.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(recovered.stdout)).toEqual({ jobs: 1, messages: 2, cancelled: 1 });
    expect({ jobs: jobsQueue().stats.sent - sent.jobs, webhooks: webhooksQueue().stats.sent - sent.webhooks }).toEqual({
      jobs: 2,
      webhooks: 1,
    });
    expect(await getJob(unsent)).toMatchObject({ status: 'completed', succeeded: 2, messages: 'sent' });
    expect(await getJob(unwritten)).toMatchObject({ status: 'cancelled', webhook_status: 'delivered', webhook_attempts: 1 });
    expect(hook.received.map((body) => JSON.parse(body).data)).toEqual([expect.objectContaining({ id: unwritten, status: 'cancelled' })]);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });
});
