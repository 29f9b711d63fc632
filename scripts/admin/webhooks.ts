/**
 * `admin webhooks …` (docs/alerts.md, docs/operations.md): an organization's notification
 * endpoints and alert settings, an endpoint's deliveries, and the resend of a finished delivery
 * (after its receiver was fixed: a `failed` one, or a `delivered` one its owner lost). A resend
 * goes to the stack's webhooks queue: against the local stack its own, against a deployed table
 * `--webhooks-queue-url` (the stack's output WebhooksQueueUrl).
 */
import { WEBHOOK_EVENT_ID_PATTERN, WEBHOOK_ID_PATTERN } from '../../lib/model.ts';
import { type Args, type CommandGroup, checkOneOf, command, orgId, UsageError } from './command.ts';
import { queueUrls, useQueuesOf, webhooksQueueOption } from './queues.ts';

const ORG = { type: 'string', value: 'ID', required: true, description: 'the organization' } as const;
const WEBHOOK = { type: 'string', value: 'WEBHOOK_ID', required: true, description: 'the endpoint id (whk_…)' } as const;
const STATUSES = ['pending', 'delivered', 'failed'] as const;
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;

function webhookId(args: Args): string {
  const value = args.required('webhook');
  if (!WEBHOOK_ID_PATTERN.test(value)) throw new UsageError(`--webhook must look like whk_<32 lowercase hex digits>, got "${value}"`);
  return value;
}

function eventId(args: Args): string {
  const value = args.required('event');
  if (!WEBHOOK_EVENT_ID_PATTERN.test(value)) throw new UsageError(`--event must look like evt_<32 lowercase hex digits>, got "${value}"`);
  return value;
}

const list = command({
  name: 'list',
  summary: "the organization's notification endpoints (never their secrets) and its alert settings",
  options: { org: ORG },
  parse: (args) => ({ orgId: orgId(args) }),
  run: async ({ orgId }) => (await import('../../lib/admin/webhooks.ts')).listOrganizationWebhooks(orgId),
});

const deliveries = command({
  name: 'deliveries',
  summary: "an endpoint's deliveries, newest first: status, attempts, last status code, next attempt",
  options: {
    org: ORG,
    webhook: WEBHOOK,
    status: { type: 'string', value: STATUSES.join('|'), description: 'only the deliveries of that status' },
    limit: { type: 'string', value: 'N', description: `at most N deliveries (1 to ${MAX_LIMIT}, default ${DEFAULT_LIMIT})` },
  },
  parse: (args) => {
    const status = args.optional('status');
    return {
      orgId: orgId(args),
      webhookId: webhookId(args),
      status: status === undefined ? undefined : checkOneOf(status, STATUSES, '--status'),
      limit: args.integer('limit', { min: 1, max: MAX_LIMIT }) ?? DEFAULT_LIMIT,
    };
  },
  run: async ({ orgId, webhookId, status, limit }) =>
    (await import('../../lib/admin/webhooks.ts')).listEndpointDeliveries(orgId, webhookId, { limit, status }),
});

const resend = command({
  name: 'resend',
  summary: 'send a delivered or failed delivery again from its first attempt (the same event and webhook-id); prints the delivery',
  options: {
    org: ORG,
    webhook: WEBHOOK,
    event: { type: 'string', value: 'EVENT_ID', required: true, description: 'the event id (evt_…, the webhook-id header)' },
    ...webhooksQueueOption('where the resend is queued'),
  },
  parse: (args) => ({
    orgId: orgId(args),
    webhookId: webhookId(args),
    eventId: eventId(args),
    queues: queueUrls(args, ['webhooks-queue-url']),
  }),
  run: async ({ orgId, webhookId, eventId, queues }, target) => {
    await useQueuesOf(target, queues, ['webhooks']);
    return (await import('../../lib/admin/webhooks.ts')).resendEndpointDelivery(orgId, webhookId, eventId);
  },
});

export const group: CommandGroup = { name: 'webhooks', commands: [list, deliveries, resend] };
