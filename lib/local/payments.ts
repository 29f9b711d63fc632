/**
 * `npm start`'s payments (docs/funding.md, "Locally"): the local payments server on 127.0.0.1 (a
 * free port), the service pointed at it as it would be at Stripe (its secret key, its webhook
 * signing secret, its address), its webhooks sent to the stack's own `POST
 * /payments/stripe/webhook`, and the deployed reconciler's schedule on an interval of its own.
 */
import { DEFAULTS } from '../config.ts';
import { type PaymentsServer, startPaymentsServer } from './payments-server.ts';
import { everyInterval } from './schedule.ts';

/** The route Stripe's webhooks come to (lib/routes.ts `ReceiveStripeWebhook`). */
export const STRIPE_WEBHOOK_PATH = '/payments/stripe/webhook';

export interface LocalPayments {
  server: PaymentsServer;
  /** What `.local/dev.json` says of it (`payments`), less the pricing, which the stack adds. */
  described: { api_base: string; secret_key: string; webhook_secret: string; webhook_url: string };
  stop(): Promise<void>;
}

/**
 * Starts the payments server and sets the variables the service reads (lib/config.ts): set here
 * unconditionally, since a key or base left over in the shell would point the stack at another
 * payments API whose events never reach this webhook. Before the functions load: bundled mode hands
 * each function a copy of this environment.
 */
export async function startLocalPayments(baseUrl: string): Promise<LocalPayments> {
  const webhookUrl = `${baseUrl}${STRIPE_WEBHOOK_PATH}`;
  const server = await startPaymentsServer({ webhookUrl });
  process.env.STRIPE_SECRET_KEY = server.secretKey;
  process.env.STRIPE_WEBHOOK_SECRET = server.webhookSecret;
  process.env.STRIPE_API_BASE = server.url;
  return {
    server,
    described: { api_base: server.url, secret_key: server.secretKey, webhook_secret: server.webhookSecret, webhook_url: webhookUrl },
    stop: () => server.close(),
  };
}

/**
 * The deployed reconciler's schedule (infra/reconciler.ts), every PAYMENTS_RECONCILE_INTERVAL_SECONDS
 * (default DEFAULTS.paymentsReconcileIntervalSeconds; 0 turns it off): the scheduled pass, which
 * settles what the webhook missed once it is 2 minutes old.
 */
export function startPaymentsReconciler(
  intervalSeconds = Number(process.env.PAYMENTS_RECONCILE_INTERVAL_SECONDS || DEFAULTS.paymentsReconcileIntervalSeconds),
  log: (line: string) => void = console.log,
  run: <T>(pass: () => Promise<T>) => Promise<T> = (pass) => pass(),
): () => void {
  return everyInterval(intervalSeconds, async () => {
    try {
      // Imported at the first pass, not at start: the Stripe SDK takes a moment to load.
      const { reconcilePayments } = await import('../billing/reconciler.ts');
      const { runDueRecharges } = await import('../billing/recharge.ts');
      const result = await run(() => reconcilePayments({ scheduled: true }));
      if (result.settled > 0 || result.reversed > 0)
        log(`payments reconciler: ${result.events} events, settled ${result.settled}, reversed ${result.reversed}`);
      // The deployed function's second part: the auto-recharges due.
      const due = await run(() => runDueRecharges());
      if (due.due > 0) log(`auto-recharges due: ${due.due}, claimed ${due.claimed}, failed ${due.failed}, retried ${due.retried}`);
    } catch (error) {
      log(`payments reconciler: ${(error as Error).message}`);
    }
  });
}
