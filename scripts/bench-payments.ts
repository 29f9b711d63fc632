/**
 * `npm run bench:payments`: payment → spendable, the contract's "usable within 5 s of the
 * payment" (docs/funding.md). On the bench's stack (DynamoDB Local, the local payments server the
 * service's `stripe` SDK is pointed at), the real handlers behind the local HTTP server as `npm
 * start` serves them: for each of PAYMENTS_N checkouts (default 60, PAYMENTS_CONCURRENCY at once,
 * default 4), each in an organization of its own with no credits, an owner creates the purchase
 * (`POST …/credit-purchases`), the checkout page's form is posted with 4242 4242 4242 4242 (as
 * the buyer's browser does), and from the moment its 303 to `success_url` arrives (the payment
 * succeeded), an editor's run (`POST /social/x_profile`, 1 credit) is sent every
 * PAYMENTS_POLL_MS (default 20) until one is answered 200: that answer's arrival less the 303's is
 * the sample. What it includes: the payments server sending `checkout.session.completed` and
 * `payment_intent.succeeded` to the webhook (each its own signed POST), the webhook reading the
 * Checkout Session and the PaymentIntent back from the payments API, and the settle transaction;
 * and up to one poll interval. PAYMENTS_WARMUP (default 5) checkouts first, not counted.
 * Writes bench-output/payments.json. The aim: p95 ≤ 5 s.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { latencyOf } from './bench/stats.ts';

// Before anything imports the logger (the payments server's does, with the bench's stack): it reads its level once.
process.env.LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'silent';
const { startBenchStack, UNDER_LOAD } = await import('./bench/local.ts');

const OUTPUT = join(import.meta.dirname, '..', 'bench-output');
const N = Number(process.env.PAYMENTS_N ?? 60);
const CONCURRENCY = Number(process.env.PAYMENTS_CONCURRENCY ?? 4);
const POLL_MS = Number(process.env.PAYMENTS_POLL_MS ?? 20);
const WARMUP = Number(process.env.PAYMENTS_WARMUP ?? 5);
const CREDITS = 500;
const AIM_MS = 5_000;
/** A payment whose credits are not spendable by then is reported as such, not waited for. */
const GIVE_UP_MS = 30_000;

async function main() {
  const loadAtStart = loadavg();
  const stack = await startBenchStack(UNDER_LOAD);
  const [{ createLocalServer, loadHandlers }, { STRIPE_WEBHOOK_PATH }, { createOrganization }, { addMembership }] = await Promise.all([
    import('../lib/local/server.ts'),
    import('../lib/local/payments.ts'),
    import('../lib/db/organizations.ts'),
    import('../lib/db/memberships.ts'),
  ]);
  const server = createLocalServer(await loadHandlers());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stack.payments.setWebhookUrl(`${base}${STRIPE_WEBHOOK_PATH}`);
  try {
    const newOrganization = async () => {
      const id = randomBytes(6).toString('hex');
      const orgId = `org_pay_${id}`;
      await createOrganization({ id: orgId, credits: 0 });
      const [owner, editor] = [`user_pay_owner_${id}`, `user_pay_editor_${id}`];
      await Promise.all([addMembership({ orgId, userId: owner, role: 'owner' }), addMembership({ orgId, userId: editor, role: 'editor' })]);
      return { orgId, owner, editor };
    };
    const call = (path: string, userId: string, init: RequestInit = {}) =>
      fetch(`${base}${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${stack.tokenFor(userId)}`, 'Content-Type': 'application/json' },
      });

    /** One checkout paid, then runs until one spends: the ms from the payment's success to that run's answer, and the 402s before it. */
    const sample = async (): Promise<{ ms: number; refused: number }> => {
      const { orgId, owner, editor } = await newOrganization();
      const created = await call(`/organizations/${orgId}/credit-purchases`, owner, {
        method: 'POST',
        body: JSON.stringify({ credits: CREDITS }),
      });
      const purchase = (await created.json()) as { checkout_url?: string };
      if (created.status !== 201 || !purchase.checkout_url) throw new Error(`purchase: ${created.status} ${JSON.stringify(purchase)}`);
      const form = new URLSearchParams({ card_number: '4242 4242 4242 4242', exp_month: '12', exp_year: '2040', cvc: '123' });
      const paid = await fetch(purchase.checkout_url, { method: 'POST', body: form, redirect: 'manual' });
      await paid.arrayBuffer();
      const paidAt = performance.now();
      if (paid.status !== 303) throw new Error(`checkout: ${paid.status}`);
      let refused = 0;
      while (performance.now() - paidAt < GIVE_UP_MS) {
        const sentAt = performance.now();
        const run = await call(`/social/x_profile?organization_id=${orgId}`, editor, {
          method: 'POST',
          body: JSON.stringify({ handle: 'nasa' }),
        });
        await run.arrayBuffer();
        if (run.status === 200) return { ms: performance.now() - paidAt, refused };
        if (run.status !== 402) throw new Error(`run: ${run.status}`);
        refused += 1;
        const wait = sentAt + POLL_MS - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      return { ms: Number.POSITIVE_INFINITY, refused };
    };

    for (let i = 0; i < WARMUP; i += 1) await sample();
    const samples: { ms: number; refused: number }[] = [];
    const startedAt = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < N) {
          next += 1;
          samples.push(await sample());
        }
      }),
    );
    const wallMs = performance.now() - startedAt;
    await stack.payments.deliveriesSettled();
    const spendable = samples.map((each) => each.ms);
    const latency = latencyOf(spendable);
    const report = {
      command: 'npm run bench:payments',
      checkouts: N,
      concurrency: CONCURRENCY,
      poll_ms: POLL_MS,
      payment_to_spendable_ms: {
        p50: Math.round(latency.p50),
        p95: Math.round(latency.p95),
        max: Math.round(Math.max(...spendable)),
        mean: Math.round(latency.mean),
      },
      aim_p95_ms: AIM_MS,
      within_aim: latency.p95 <= AIM_MS,
      never_spendable: spendable.filter((ms) => !Number.isFinite(ms)).length,
      refused_runs_before_spendable: samples.reduce((sum, each) => sum + each.refused, 0),
      webhook_deliveries: stack.payments.deliveryStats,
      wall_s: Math.round(wallMs / 100) / 10,
      load_average_at_start: loadAtStart.map((value) => Math.round(value * 100) / 100),
      at: new Date().toISOString(),
    };
    mkdirSync(OUTPUT, { recursive: true });
    writeFileSync(join(OUTPUT, 'payments.json'), `${JSON.stringify(report, null, 2)}\n`);
    console.log(JSON.stringify(report, null, 2));
    console.log(
      `payment → spendable over ${N} checkouts (${CONCURRENCY} at once): p50 ${report.payment_to_spendable_ms.p50} ms, p95 ${report.payment_to_spendable_ms.p95} ms (aim ≤ ${AIM_MS} ms: ${report.within_aim ? 'met' : 'NOT met'})`,
    );
    if (!report.within_aim || report.never_spendable > 0) process.exitCode = 1;
  } finally {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await stack.stop();
  }
}

await main();
