import * as z from 'zod/mini';
import { baseChain } from '../lib/http/base-chain.ts';
import { NETWORKS } from '../lib/model.ts';
import { OPERATION_NAMES } from '../lib/social/catalog/names.ts';
import { STATUSES } from '../lib/social/health/state.ts';
import { forgetStatusPage, statusPage } from '../lib/social/health/status.ts';

/**
 * GET /social/status — anyone, no token: every operation's status and its providers' (success rate
 * and p50 over the last hour), in Statuspage's words, with the page's indicator
 * (docs/social-operations.md, "Status"). One Query at most every 15 s per instance.
 */
export const handler = baseChain().handler(async () => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=30' },
  body: JSON.stringify(await statusPage()),
}));

export { forgetStatusPage };

export const responseHeaders = ['Cache-Control'];

export const operationHealthSchema = z.object({
  operation: z.enum(OPERATION_NAMES),
  network: z.nullable(z.enum(NETWORKS)),
  status: z.enum(STATUSES),
  since: z.nullable(z.string()).register(z.globalRegistry, {
    description: 'when the operation entered this status, as well as the health counters tell; null when never seen otherwise',
  }),
  providers: z.array(
    z.object({
      name: z.string().register(z.globalRegistry, { description: 'the provider, in failover order (the first is the primary)' }),
      status: z.enum(STATUSES),
      success_rate_1h: z.nullable(z.number()).register(z.globalRegistry, {
        description:
          'share of its calls that answered (results, empty results and "not found") over the last hour, 0–1; null without calls',
      }),
      p50_ms: z.nullable(z.number()).register(z.globalRegistry, {
        description: 'median latency of its answers over the last hour, as the upper bound of its latency band (ms); null without answers',
      }),
    }),
  ),
});

export const responseSchema = z.object({
  indicator: z.enum(['none', 'minor', 'major', 'critical']).register(z.globalRegistry, {
    description:
      'the worst status among the operations a provider serves here: none (all operational), minor (degraded), major (partial outage), critical (major outage)',
  }),
  updated_at: z.string(),
  operations: z.array(operationHealthSchema),
});
