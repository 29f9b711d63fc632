/**
 * `npm run bench:alerts`: how soon an alert reaches its endpoint after the charge that crossed its
 * line, on the local stack as `npm start` runs it: paid runs (sample provider) through the real
 * run handler at ALERTS_RATE runs a second (default 50) spread over ALERTS_ORGANIZATIONS
 * organizations (default 50), the table's stream read into its function by the local poller
 * (TABLE_STREAM_POLL_MS, default 250 ms), the events queued on the embedded webhooks queue and
 * delivered by its consumer with npm start's settings, to one receiver per organization on
 * 127.0.0.1 that answers 204 at once.
 *
 * Each organization starts with 30 credits, `low_balance` 15, thresholds [20, 40, 60, 80, 100],
 * a monthly limit of 20 and its one editor a daily limit of 20; its runs (1 credit each) follow
 * one another, so its k-th answered run made the charge that took its spend to k. It gets 20
 * runs: 11 events (5 thresholds of the organization's month, 5 of the member's day, the balance
 * falling below 15 at the 16th). An event's latency is its arrival less the `created_at` of the
 * charge that crossed (stamped just before the charge's transaction is sent), and, as the caller
 * sees it, less the moment that run answered. Every event must arrive exactly once (its
 * `webhook-id` once): otherwise the bench fails. Writes bench-output/alerts.json.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startBenchStack, UNDER_LOAD } from './bench/local.ts';
import { percentile } from './bench/stats.ts';
import { startBenchStream } from './bench/stream.ts';

const OUTPUT = join(import.meta.dirname, '..', 'bench-output');
const rate = Number(process.env.ALERTS_RATE ?? 50);
const organizations = Number(process.env.ALERTS_ORGANIZATIONS ?? 50);
const CREDITS = 30;
const LOW_BALANCE = 15;
const LIMIT = 20;
const THRESHOLDS = [20, 40, 60, 80, 100];
const RUNS_EACH = LIMIT;
const EVENTS_EACH = 2 * THRESHOLDS.length + 1;
/** The contract's bound (docs/alerts.md). */
const BOUND_MS = 10_000;

interface Arrival {
  id: string;
  atMs: number;
  event: { type: string; organization_id: string; data: Record<string, any> };
}

async function main() {
  const loadAtStart = loadavg();
  const stack = await startBenchStack({
    ...UNDER_LOAD,
    JOBS_WEBHOOK_ALLOW_LOOPBACK: 'true',
  });
  const servers: Server[] = [];
  try {
    const [
      { handler: run },
      { buildHttpEvent, localContext },
      { createOrganization },
      { addMembership },
      { putAlertSettings },
      { createWebhookEndpoint },
      { installEmbeddedQueues },
      { startWebhookDelivery },
      { charges },
      { operatorSource },
    ] = await Promise.all([
      import('../functions/run-social-operation.ts'),
      import('../lib/local/apigw-event.ts'),
      import('../lib/db/organizations.ts'),
      import('../lib/db/memberships.ts'),
      import('../lib/db/alert-settings.ts'),
      import('../lib/alerts/endpoints.ts'),
      import('../lib/local/embedded-queue.ts'),
      import('../lib/local/webhook-delivery.ts'),
      import('./bench/freshness-org.ts'),
      import('../lib/db/audit-events.ts'),
    ]);
    installEmbeddedQueues();
    const stopDelivery = startWebhookDelivery();

    // What every receiver got, and each webhook-id seen more than once.
    const arrivals: Arrival[] = [];
    const duplicates: string[] = [];
    const seen = new Set<string>();
    const receive = (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const atMs = Date.now();
        response.writeHead(204).end();
        const id = String(request.headers['webhook-id']);
        if (seen.has(id)) duplicates.push(id);
        else {
          seen.add(id);
          arrivals.push({ id, atMs, event: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        }
      });
    };

    // The organizations, each with its owner, editor, settings, endpoint and receiver.
    const orgs = await Promise.all(
      Array.from({ length: organizations }, async () => {
        const orgId = `org_alerts_${randomBytes(6).toString('hex')}`;
        const owner = `user_alerts_owner_${randomBytes(4).toString('hex')}`;
        const editor = `user_alerts_editor_${randomBytes(4).toString('hex')}`;
        await createOrganization({ id: orgId, credits: CREDITS, spendingLimit: LIMIT });
        await addMembership({ orgId, userId: owner, role: 'owner' });
        await addMembership({ orgId, userId: editor, role: 'editor', dailyLimit: LIMIT });
        await putAlertSettings(orgId, owner, { low_balance: LOW_BALANCE, thresholds: THRESHOLDS }, operatorSource('bench'), new Date());
        const server = createServer(receive);
        servers.push(server);
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/alerts`;
        await createWebhookEndpoint({ userId: owner }, orgId, { url, events: ['*'] });
        const token = stack.tokenFor(editor);
        return { orgId, editor, token, chargeIds: [] as string[], answeredAt: [] as number[] };
      }),
    );

    // The setup's writes (no crossing among them) are read before the load starts.
    const stream = await startBenchStream();

    await stream.catchUp();

    const runEvent = (org: (typeof orgs)[number]) =>
      buildHttpEvent({
        method: 'POST',
        path: '/social/x_profile',
        routeKey: 'POST /social/{operation}',
        rawQueryString: `organization_id=${org.orgId}`,
        pathParameters: { operation: 'x_profile' },
        headers: { authorization: `Bearer ${org.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ handle: 'nasa' }),
      });
    const statuses = new Map<number, number>();
    const runMs: number[] = [];
    const runOnce = async (org: (typeof orgs)[number]) => {
      const sentAt = performance.now();
      const result = (await (run as (e: unknown, c: unknown) => Promise<{ statusCode?: number; headers?: Record<string, unknown> }>)(
        runEvent(org),
        localContext('RunSocialOperation'),
      )) as { statusCode?: number; headers?: Record<string, unknown> };
      runMs.push(performance.now() - sentAt);
      const status = result.statusCode ?? 0;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      const chargeId = result.headers?.['Charge-Id'];
      if (status === 200 && typeof chargeId === 'string') {
        org.chargeIds.push(chargeId);
        org.answeredAt.push(Date.now());
      }
    };

    // The load: one run every 1000 / rate ms, the organizations in turn; an organization's runs
    // follow one another (a run waits for its organization's previous one).
    const total = organizations * RUNS_EACH;
    const chains = orgs.map(() => Promise.resolve());
    const startedAt = Date.now();
    for (let i = 0; i < total; i += 1) {
      const due = startedAt + (i * 1000) / rate;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const o = i % organizations;
      const org = orgs[o];
      if (org) chains[o] = (chains[o] ?? Promise.resolve()).then(() => runOnce(org));
    }
    await Promise.all(chains);
    const sendingMs = Date.now() - startedAt;
    const expected = organizations * EVENTS_EACH;
    const giveUpAt = Date.now() + 60_000;
    while (arrivals.length < expected && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 50));
    // A moment more: a second copy of an event would show.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await stream.stop();
    await stopDelivery();

    // Each event's crossing charge: the k-th of its organization, k its spend (or 30 less its balance).
    const byOrg = new Map(orgs.map((org) => [org.orgId, org]));
    const chargedAt = new Map<string, number>();
    for (const org of orgs) for (const charge of await charges(org.orgId)) chargedAt.set(charge.id, charge.atMs);
    const latencies: number[] = [];
    const afterAnswer: number[] = [];
    const kinds = new Map<string, number>();
    for (const { atMs, event } of arrivals) {
      const org = byOrg.get(event.organization_id);
      const k = event.type === 'credits.balance_low' ? CREDITS - Number(event.data.balance) : Number(event.data.spent);
      const chargeId = org?.chargeIds[k - 1];
      const at = chargeId ? chargedAt.get(chargeId) : undefined;
      const answered = org?.answeredAt[k - 1];
      const kind = event.type === 'credits.balance_low' ? event.type : `${event.data.scope}/${event.data.period}`;
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      if (at !== undefined) latencies.push(atMs - at);
      if (answered !== undefined) afterAnswer.push(Math.max(0, atMs - answered));
    }
    latencies.sort((a, b) => a - b);
    afterAnswer.sort((a, b) => a - b);
    runMs.sort((a, b) => a - b);
    const ok = statuses.get(200) ?? 0;
    const figures = (sorted: number[]) => ({
      p50: Math.round(percentile(sorted, 50)),
      p95: Math.round(percentile(sorted, 95)),
      p99: Math.round(percentile(sorted, 99)),
      max: Math.round(sorted.at(-1) ?? Number.NaN),
    });
    const result = {
      startedAt: new Date(startedAt).toISOString(),
      node: process.version,
      load: { start: loadAtStart, end: loadavg() },
      organizations,
      rate: { asked: rate, achieved: Number((total / (sendingMs / 1000)).toFixed(1)) },
      runs: {
        sent: total,
        ok,
        statuses: Object.fromEntries(statuses),
        p50Ms: Math.round(percentile(runMs, 50)),
        p95Ms: Math.round(percentile(runMs, 95)),
      },
      events: {
        expected,
        arrived: arrivals.length,
        duplicates: duplicates.length,
        byKind: Object.fromEntries(kinds),
        unmatched: arrivals.length - latencies.length,
      },
      chargeToArrivalMs: figures(latencies),
      answerToArrivalMs: figures(afterAnswer),
      boundMs: BOUND_MS,
      pollIntervalMs: Number(process.env.TABLE_STREAM_POLL_MS ?? 250),
    };
    mkdirSync(OUTPUT, { recursive: true });
    writeFileSync(join(OUTPUT, 'alerts.json'), `${JSON.stringify(result, null, 2)}\n`);
    const line = (name: string, f: ReturnType<typeof figures>) =>
      `${name}: p50 ${f.p50} ms, p95 ${f.p95} ms, p99 ${f.p99} ms, max ${f.max} ms`;
    console.log(
      `${total} paid runs over ${organizations} organizations at ${result.rate.achieved}/s (asked ${rate}/s): statuses ${JSON.stringify(result.runs.statuses)}, run p50 ${result.runs.p50Ms} ms, p95 ${result.runs.p95Ms} ms`,
    );
    console.log(
      `events: ${arrivals.length} of ${expected} arrived, ${duplicates.length} duplicates, by kind ${JSON.stringify(result.events.byKind)}`,
    );
    console.log(`${line('crossing charge -> event received', result.chargeToArrivalMs)} (bound ${BOUND_MS} ms)`);
    console.log(line('run answered -> event received', result.answerToArrivalMs));
    const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
    console.log(`load average (1, 5, 15 min): ${load(result.load.start)} at start, ${load(result.load.end)} at end`);
    console.log(`written: ${join('bench-output', 'alerts.json')}`);
    if (arrivals.length !== expected || duplicates.length > 0 || ok !== total || result.events.unmatched > 0) process.exitCode = 1;
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
