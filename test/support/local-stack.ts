import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startJobWorker } from '../../lib/local/job-worker.ts';
import { startLocalPayments } from '../../lib/local/payments.ts';
import { DEMO, seedDemoWorkspace } from '../../lib/local/seed.ts';
import { createLocalServer, loadHandlers } from '../../lib/local/server.ts';
import { LOCAL_SES_PREFIX, type OutboxMessage } from '../../lib/local/ses-outbox.ts';
import { startWebhookDelivery } from '../../lib/local/webhook-delivery.ts';
import { startTableStream, turnOnTableStream } from './table-stream.ts';
import { tokenFor } from './tokens.ts';

export interface LocalStack {
  baseUrl: string;
  organizationId: string;
  /** The demo owner's token (signed by the test key the verifier trusts). */
  ownerToken: string;
  /** Resolves once everything written so far has been read from the table's stream (usage counted). */
  catchUp(): Promise<void>;
  /** The emails sent to `to` (invitations), oldest first, from the outbox `npm start` writes too. */
  outbox(to: string): OutboxMessage[];
  stop(): Promise<void>;
}

/**
 * The local stack of `npm start` inside the test process: the same server and handlers on
 * 127.0.0.1 (a free port), the demo workspace seeded in this file's table (and its demo users
 * offered to the console), the sample provider,
 * the job worker and the webhook delivery on the embedded queues, and the table's stream read into its
 * function (usage). With `payments`, the payments server `npm start` runs, its webhooks to this
 * server (the service's Stripe settings restored at `stop`: test files share a worker).
 */
export async function startLocalStack(options: { payments?: boolean } = {}): Promise<LocalStack> {
  process.env.SOCIAL_PROVIDER = 'sample';
  // The table's stream on before the seed, as `npm start` has it: the seed's runs are in usage.
  await turnOnTableStream();
  await seedDemoWorkspace();
  // The demo users the console offers, as `npm start` offers them (their tokens signed by the test key).
  const demoUsers = () => Object.entries(DEMO.users).map(([role, userId]) => ({ role, user_id: userId, token: tokenFor(userId) }));
  // Email as under `npm start`: SES's client to this server's stand-in, which writes the outbox.
  const outboxDir = mkdtempSync(join(tmpdir(), 'local-stack-outbox-'));
  const server = createLocalServer(await loadHandlers(), { demoUsers, outboxDir });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  process.env.SES_ENDPOINT = `${baseUrl}${LOCAL_SES_PREFIX}`;
  process.env.INVITATION_FROM_ADDRESS = 'invitations@workspace.test';
  const stripeSettings = ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'STRIPE_API_BASE'].map(
    (name) => [name, process.env[name]] as const,
  );
  const payments = options.payments ? await startLocalPayments(baseUrl) : undefined;
  const stopWorkers = [startJobWorker(), startWebhookDelivery()];
  const stream = await startTableStream();
  return {
    baseUrl,
    organizationId: DEMO.orgId,
    ownerToken: tokenFor(DEMO.users.owner),
    catchUp: () => stream.catchUp(),
    outbox: (to) =>
      readdirSync(outboxDir)
        .filter((name) => name.endsWith('.json'))
        .map((name) => JSON.parse(readFileSync(join(outboxDir, name), 'utf8')) as OutboxMessage)
        .filter((message) => message.to === to)
        .sort((a, b) => a.sent_at.localeCompare(b.sent_at)),
    stop: async () => {
      rmSync(outboxDir, { recursive: true, force: true });
      await Promise.all(stopWorkers.map((stop) => stop()));
      await stream.stop();
      await payments?.stop();
      for (const [name, value] of stripeSettings) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
