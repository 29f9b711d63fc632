/**
 * `admin payments …` (docs/funding.md): an organization's auto-recharge as its owners and the
 * engine see it, and the payments reconciler ("The reconciler") on demand. The
 * deployed stack runs it every minute over recent events; this pass looks 3 days back, at events
 * of any age. Stripe's key: the local stack's payments server (.local/dev.json), or
 * STRIPE_SECRET_KEY (and STRIPE_API_BASE) in the environment for a deployed table.
 */
import { type CommandGroup, command, orgId } from './command.ts';

const reconcile = command({
  name: 'reconcile',
  summary: 'one reconciler pass now over 3 days of events; prints {"events": N, "settled": N, "reversed": N}',
  options: { org: { type: 'string', value: 'ID', description: 'only the events about this organization' } },
  parse: (args) => ({ orgId: args.optional('org') === undefined ? undefined : orgId(args) }),
  run: async ({ orgId: org }, target) => {
    const payments = target.dev?.payments;
    if (target.local && payments && !process.env.STRIPE_SECRET_KEY) {
      process.env.STRIPE_SECRET_KEY = payments.secret_key;
      process.env.STRIPE_API_BASE = payments.api_base;
    }
    const { reconcilePayments } = await import('../../lib/billing/reconciler.ts');
    return reconcilePayments({ scheduled: false, orgId: org });
  },
});

const autoRecharge = command({
  name: 'auto-recharge',
  summary: "an organization's auto-recharge: the owners' view, the purchase in flight and the sequence",
  options: { org: { type: 'string', value: 'ID', required: true, description: 'the organization' } },
  parse: (args) => ({ orgId: orgId(args) }),
  run: async ({ orgId: org }) => (await import('../../lib/admin/auto-recharge.ts')).showAutoRecharge(org),
});

export const group: CommandGroup = { name: 'payments', commands: [reconcile, autoRecharge] };
