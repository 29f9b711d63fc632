/**
 * A bulk job with a webhook: 50 creators' profiles in one request, and the answer pushed back
 * when all are done. The script listens on 127.0.0.1 for the webhook (the local stack calls
 * loopback URLs; a deployed one only public https URLs), submits the job, waits for the signed
 * `job.completed` event, checks its signature with the job's secret (Standard Webhooks), and
 * reads the items that failed.
 *
 *   npm start                              # in another terminal
 *   node --import tsx examples/bulk-job.ts
 *
 * Settings: examples/settings.ts (an editor's or owner's token).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWorkspaceClient } from '../client/index.ts';
import { settings } from './settings.ts';

const { baseUrl, token, organizationId } = settings();
const client = createWorkspaceClient({ baseUrl, token });

/** Standard Webhooks: v1,<base64 HMAC-SHA256 of "id.timestamp.body"> keyed by the secret's base64 part. */
function signedBy(secret: string, headers: Record<string, string | string[] | undefined>, body: string): boolean {
  const expected = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`)
    .digest();
  return String(headers['webhook-signature'])
    .split(' ')
    .some((signature) => {
      const given = Buffer.from(signature.replace(/^v1,/, ''), 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

// 1. A receiver for the webhook; it answers 200 once it has the event.
let delivered: (event: { headers: Record<string, string | string[] | undefined>; body: string }) => void = () => undefined;
const event = new Promise<{ headers: Record<string, string | string[] | undefined>; body: string }>((resolve) => (delivered = resolve));
const receiver = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  request.on('end', () => {
    response.writeHead(200).end();
    delivered({ headers: request.headers, body });
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/jobs`;

// 2. The job: 50 inputs (one of them a handle the sample provider does not find), answered at once.
// `max_credits` bounds what the whole batch may cost, whatever runs, fails or is retried: items
// past it would fail uncharged (max_credits_exceeded), and a refunded item gives its credits back.
const inputs = Array.from({ length: 50 }, (_, i) => ({ handle: i === 7 ? 'sample_not_found' : `creator${i}` }));
const created = await client.POST('/social/{operation}/jobs', {
  params: { path: { operation: 'tiktok_profile' }, query: { organization_id: organizationId } },
  body: { inputs, webhook_url: webhookUrl, max_credits: 60 },
});
if (created.error) throw new Error(`create: ${created.error.code}: ${created.error.message}`);
const job = created.data;
console.log(`job ${job.id}: ${job.total} items ${job.status}, at ${created.response.headers.get('location')}`);

// 3. The webhook, when the job ends: checked before it is trusted.
const timeout = setTimeout(() => {
  console.error('no webhook within 60 s');
  process.exit(1);
}, 60_000);
const { headers, body } = await event;
clearTimeout(timeout);
receiver.close();
const secret = job.webhook_secret ?? '';
const ended = JSON.parse(body) as { type: string; data: typeof job };
console.log(`webhook ${ended.type}, signature valid: ${signedBy(secret, headers, body)}`);
console.log(`${ended.data.status}: ${ended.data.succeeded} succeeded, ${ended.data.failed} failed, ${ended.data.charged} credits`);

// 4. The items that failed, with the error a single run would have answered.
const failed = await client.GET('/social/jobs/{job_id}/items', { params: { path: { job_id: job.id }, query: { status: 'failed' } } });
if (failed.error) throw new Error(`items: ${failed.error.code}: ${failed.error.message}`);
for (const item of failed.data.items)
  console.log(`failed #${item.index} ${JSON.stringify(item.input)}: ${item.error?.code} (charged ${item.charged})`);
