/**
 * Where an owner adds credits: the console's Billing screen for one organization. The checkout's
 * `success_url` and `cancel_url` return there, and a 402 `insufficient_credits` names it
 * (`data.billing_url`) so that an agent out of credits can hand its person a link. The base is
 * the API's own, as the caller reached it (lib/http/base-url.ts); the domain never knows it, so
 * the entry points (a run, a quote, a job's items, an MCP tool) add the link to the error there.
 */
import { ServiceError } from '../errors.ts';

export const billingUrl = (base: string, orgId: string): string => `${base}/console?organization_id=${encodeURIComponent(orgId)}#billing`;

/** An error body (`{ code, message, data? }`) as stored or built: with `data.billing_url` when it is `insufficient_credits`. */
export function fieldsWithBillingUrl<F extends { code: string; data?: Record<string, unknown> }>(
  fields: F,
  base: string,
  orgId: string,
): F {
  if (fields.code !== 'insufficient_credits') return fields;
  return { ...fields, data: { ...fields.data, billing_url: billingUrl(base, orgId) } };
}

/** A thrown error with `data.billing_url` when it is `insufficient_credits`; anything else as it is. */
export function withBillingUrl(error: unknown, base: string, orgId: string): unknown {
  if (!(error instanceof ServiceError) || error.code !== 'insufficient_credits') return error;
  return new ServiceError(error.code, error.message, {
    ...error.details,
    data: { ...error.details.data, billing_url: billingUrl(base, orgId) },
  });
}
