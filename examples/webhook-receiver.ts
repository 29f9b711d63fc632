/**
 * A receiver for the workspace's alerts (docs/alerts.md): low balance, spending-limit thresholds,
 * jobs completed. It checks every request's signature with the Standard Webhooks library before
 * trusting it (a forged or replayed request is answered 400), answers 204 at once, prints each
 * event once however often it is delivered (retries carry the same `webhook-id`), and leaves the
 * work to be done with an event to you.
 *
 * With an endpoint you created (`POST /organizations/{id}/webhooks` answers its secret once):
 *
 *   WEBHOOK_SECRET=whsec_… WEBHOOK_RECEIVER_PORT=8787 node --import tsx examples/webhook-receiver.ts
 *
 * A deployed stack sends only to public https URLs: run it behind your https proxy or tunnel.
 * Without WEBHOOK_SECRET, to try it on the local stack (`npm start` in another terminal), it
 * registers itself as an endpoint for every event, has a `webhook.test` event sent to it, and
 * deletes its endpoint when it stops (Ctrl-C). `--count N` stops it after N events.
 *
 * Settings (without WEBHOOK_SECRET): examples/settings.ts, an owner's token.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { createWorkspaceClient } from '../client/index.ts';
import { settings } from './settings.ts';

interface WorkspaceEvent {
  id: string;
  type: string;
  created_at: string;
  organization_id: string;
  data: Record<string, unknown>;
}

const { values } = parseArgs({ options: { count: { type: 'string' } } });
const stopAfter = values.count === undefined ? Number.POSITIVE_INFINITY : Number(values.count);
/** Events are small; a larger body is not one of ours. */
const MAX_BODY_BYTES = 256 * 1024;

/** One line an operator can read: what happened, and the numbers that matter. */
function describe(event: WorkspaceEvent): string {
  const data = event.data;
  switch (event.type) {
    case 'credits.balance_low':
      return `balance ${data.balance} is below ${data.low_balance} credits`;
    case 'spending_limit.threshold_reached':
      return `${data.scope} ${data.id} spent ${data.spent} of its ${data.period === 'day' ? 'daily' : 'monthly'} limit of ${data.spending_limit} (${data.threshold} %)`;
    case 'job.completed':
      return `job ${data.id} ${data.status}: ${data.succeeded} succeeded, ${data.failed} failed`;
    default:
      return JSON.stringify(data);
  }
}

function readBody(request: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolve(size <= MAX_BODY_BYTES ? Buffer.concat(chunks).toString('utf8') : null));
    request.on('error', reject);
  });
}

// 1. The secret: yours, or that of an endpoint this script registers on the local stack.
let secret = process.env.WEBHOOK_SECRET;
const registering = secret === undefined;
const port = Number(process.env.WEBHOOK_RECEIVER_PORT ?? (registering ? 0 : 8787));
const host = process.env.WEBHOOK_RECEIVER_HOST ?? '127.0.0.1';

// 2. The receiver. Each webhook-id is handled once: a retry after a lost answer is the same event.
// (Kept in memory here; a receiver that restarts keeps them where its work is.)
const seen = new Set<string>();
let verifier: Webhook | undefined = secret === undefined ? undefined : new Webhook(secret);
let received = 0;
const server = createServer(async (request, response) => {
  if (request.method !== 'POST') return void response.writeHead(405, { allow: 'POST' }).end();
  const body = await readBody(request);
  if (body === null) return void response.writeHead(413).end();
  let event: WorkspaceEvent;
  try {
    if (!verifier) throw new WebhookVerificationError('no secret yet');
    // Checks the signature against the raw body and refuses a timestamp more than 5 minutes off.
    event = verifier.verify(body, request.headers as Record<string, string>) as WorkspaceEvent;
  } catch (error) {
    console.log(`rejected: ${(error as Error).message}`);
    return void response.writeHead(400).end();
  }
  // Answer first: the sender waits for the answer, not for your work.
  response.writeHead(204).end();
  if (seen.has(event.id)) return;
  seen.add(event.id);
  console.log(`verified ${event.type} ${event.id} at ${event.created_at}: ${describe(event)}`);
  received += 1;
  if (received >= stopAfter) await stop();
});
await new Promise<void>((resolve) => server.listen(port, host, resolve));
const url = `http://${host}:${(server.address() as AddressInfo).port}/webhooks`;
console.log(`listening on ${url}`);

// 3. On the local stack: an endpoint for every event pointing here, and a test event.
const local = registering ? settings() : undefined;
const api = local ? createWorkspaceClient({ baseUrl: local.baseUrl, token: local.token }) : undefined;
const workspace = { organization_id: local?.organizationId ?? '' };
let endpointId: string | undefined;
if (api) {
  const created = await api.POST('/organizations/{organization_id}/webhooks', {
    params: { path: workspace },
    body: { url, events: ['*'] },
  });
  if (created.error) throw new Error(`create the endpoint: ${created.error.code}: ${created.error.message}`);
  endpointId = created.data.id;
  secret = created.data.secret;
  verifier = new Webhook(secret);
  console.log(`endpoint ${endpointId} for every event`);
  const tested = await api.POST('/organizations/{organization_id}/webhooks/{webhook_id}/test', {
    params: { path: { ...workspace, webhook_id: endpointId } },
  });
  if (tested.error) throw new Error(`send a test event: ${tested.error.code}: ${tested.error.message}`);
}

async function stop(): Promise<void> {
  server.close();
  if (api && endpointId) {
    const deleted = await api.DELETE('/organizations/{organization_id}/webhooks/{webhook_id}', {
      params: { path: { ...workspace, webhook_id: endpointId } },
    });
    if (deleted.error) console.error(`delete the endpoint: ${deleted.error.code}: ${deleted.error.message}`);
    else console.log(`endpoint ${endpointId} deleted`);
  }
  process.exit(0);
}
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
