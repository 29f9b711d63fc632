/**
 * The Max-Credits rule: what a cap on charges may be, wherever a call or a job is sent with one
 * (the `Max-Credits` header of a run, a quote or a job's creation, a job's `max_credits`, MCP's
 * `_meta.max_credits` and `start_job`'s `max_credits` argument): a whole number of credits from 0
 * to MAX_CREDITS_CEILING, refused everywhere in the same words. What the cap then does is
 * lib/billing/charge-rules.ts's (`maxCreditsRefusal`) and, for a job, lib/billing/paid-run.ts's.
 */
import * as z from 'zod/mini';
import { MAX_CREDITS_CEILING } from '../model.ts';

export const MAX_CREDITS_RULE = `must be a whole number of credits from 0 to ${MAX_CREDITS_CEILING}`;

/**
 * A cap given as a JSON value (a body field, a tool's argument, `_meta`). A new schema on each
 * call: each place registers its own description on it for the API description.
 */
export const maxCreditsNumber = () =>
  z.int(MAX_CREDITS_RULE).check(z.gte(0, MAX_CREDITS_RULE), z.lte(MAX_CREDITS_CEILING, MAX_CREDITS_RULE));

/**
 * A cap given as a header's text: decimal digits only (`1.5`, `-1`, `1e3`, `+2` and an empty
 * value are refused, where Number() would take some of them), used as a number.
 */
export const maxCreditsText = () =>
  z.pipe(
    z.pipe(z.string().check(z.regex(/^[0-9]{1,7}$/, MAX_CREDITS_RULE)), z.transform(Number)),
    z.number().check(z.lte(MAX_CREDITS_CEILING, MAX_CREDITS_RULE)),
  );
