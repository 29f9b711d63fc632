// zod/mini: the request-path schemas of every function, because its functional API
// tree-shakes where classic zod does not (figures in docs/deployment.md, "Bundling"); classic
// and mini schemas are the same zod 4 core types, so validate.ts checks both.
import * as z from 'zod/mini';
import { maxCreditsNumber, maxCreditsText } from '../billing/max-credits.ts';
import { API_KEY_ID_PATTERN, MAX_CREDITS_CEILING, ORGANIZATION_ID_PATTERN, WEBHOOK_ID_PATTERN } from '../model.ts';

// Each schema below is `/* @__PURE__ */`: esbuild cannot tell that building a zod schema (and
// registering its description) has no effect, so without it every function built all of them,
// 2.2–2.7 KB in the social and MCP functions, whether it read one or not. A schema no handler
// reads is then dropped, its registration with it: the registry matters only to the API
// description, which is generated from the sources (docs/performance.md#bundling-decisions-measured).

/**
 * A string's length bound, for validation and the API description alike (`maxLength`: gateways
 * and scanners read it, a pattern they do not). Checked first and aborting: a longer value gets
 * this one issue, and no pattern runs over it. Each bound admits every value its pattern does.
 */
export const atMost = (max: number, error: string) => z.maxLength(max, { error, abort: true });

const ORGANIZATION_ID_RULE = 'must start with "org_" followed by 1 to 64 letters, digits, "_" or "-"';

export const organizationId = /* @__PURE__ */ z
  .string()
  .check(atMost(68, ORGANIZATION_ID_RULE), z.regex(ORGANIZATION_ID_PATTERN, ORGANIZATION_ID_RULE))
  .register(z.globalRegistry, { description: 'the organization (workspace) id', examples: ['org_demo'] });

export const uuidParam = /* @__PURE__ */ z.uuid({ error: 'must be a UUID' });

/**
 * An integer query parameter with inclusive bounds and a default. Strings of digits only:
 * "1.5", "abc", "" and "+3" are refused with the same message naming the bounds.
 */
export const integerParam = (min: number, max: number, fallback: number) => {
  const rule = `must be an integer from ${min} to ${max}`;
  const digits = z.pipe(z.string().check(z.regex(/^[0-9]{1,9}$/, rule)), z.transform(Number));
  // The API description shows the value the parameter carries, an integer, rather than the
  // digits it arrives as (`pattern: undefined` drops the digits' pattern from the JSON Schema).
  return z
    ._default(z.pipe(digits, z.number().check(z.gte(min, rule), z.lte(max, rule))), fallback)
    .register(z.globalRegistry, { description: rule, type: 'integer', minimum: min, maximum: max, pattern: undefined });
};

/** A resource id in a path: a UUID, in any case (ids are stored lower-case). */
export const resourceIdParam = /* @__PURE__ */ z
  .pipe(
    uuidParam,
    z.transform((id: string) => id.toLowerCase()),
  )
  // A UUID is 36 characters: the format bounds it, the description says so.
  .register(z.globalRegistry, { description: 'the resource id, a UUID (any case)', maxLength: 36 });

/** A listing's `cursor`: as issued in `next_cursor` (opaque, at most 512 characters). */
export const pageCursor = /* @__PURE__ */ z
  .string()
  .check(
    z.minLength(1, 'must not be empty; omit it for the first page'),
    z.maxLength(512, 'must be at most 512 characters, as issued in next_cursor'),
  );

const USER_ID_RULE = "must be 1 to 255 printable characters without spaces (the sub of the user's tokens)";

/** A member's user id in a path: the `sub` of their tokens. */
export const userIdParam = /* @__PURE__ */ z
  .string()
  .check(atMost(255, USER_ID_RULE), z.regex(/^[\x21-\x7e]{1,255}$/, USER_ID_RULE))
  .register(z.globalRegistry, { description: "the member's user id: the `sub` of their tokens", examples: ['user_demo_editor'] });

const API_KEY_ID_RULE = 'must be an API key id: "key_" followed by 32 lowercase hex digits';

/** An API key's id in a path. */
export const apiKeyIdParam = /* @__PURE__ */ z
  .string()
  .check(atMost(36, API_KEY_ID_RULE), z.regex(API_KEY_ID_PATTERN, API_KEY_ID_RULE))
  .register(z.globalRegistry, { description: 'the API key id', examples: ['key_0123456789abcdef0123456789abcdef'] });

/**
 * The `{operation}` of a run or a quote. Generous: the longest name is 27 characters; a longer
 * one is no typo to suggest a name for. Any other name is the handler's 404, which names the
 * closest real one.
 */
export const operationParam = (description: string) =>
  z
    .string()
    .check(atMost(100, 'must be at most 100 characters long: the name of an operation'))
    .register(z.globalRegistry, { description, examples: ['instagram_profile'] });

const IDEMPOTENCY_KEY_RULE = 'must be 1 to 255 printable ASCII characters without spaces (a UUID is recommended)';

/** Printable ASCII, as most APIs that take an Idempotency-Key accept (UUIDs recommended). */
export const idempotencyKey = /* @__PURE__ */ z
  .string()
  .check(atMost(255, IDEMPOTENCY_KEY_RULE), z.regex(/^[\x21-\x7e]{1,255}$/, IDEMPOTENCY_KEY_RULE))
  .register(z.globalRegistry, {
    description:
      'Makes a retry safe: the same key with the same operation and body within 24 hours replays the first answer without a second charge; with another body, 409 `idempotency_key_reused`. A UUID is recommended.',
    examples: ['5f0c6a1e-9b1d-4c2e-8f3a-2d7b6e4a9c10'],
  });

const JOB_ID_RULE = 'must be a job id: "job_" followed by 32 lowercase hex digits';

/** A job id in a path. */
export const jobIdParam = /* @__PURE__ */ z
  .string()
  .check(atMost(36, JOB_ID_RULE), z.regex(/^job_[0-9a-f]{32}$/, JOB_ID_RULE))
  .register(z.globalRegistry, { description: 'the job id', examples: ['job_0123456789abcdef0123456789abcdef'] });

/** `Max-Credits`: the most this call may be charged (lib/billing/max-credits.ts), described as the integer it stands for. */
const maxCreditsHeaderOf = (description: string) =>
  maxCreditsText().register(z.globalRegistry, {
    description,
    type: 'integer',
    minimum: 0,
    maximum: MAX_CREDITS_CEILING,
    pattern: undefined,
    examples: [25],
  });

export const maxCreditsHeader = /* @__PURE__ */ maxCreditsHeaderOf(
  `The most this call may be charged, in credits (0 to ${MAX_CREDITS_CEILING}). When what it would be charged (the operation's cost, or its cached cost when a cached result answers) is more, it answers 402 \`max_credits_exceeded\` with \`data: { cost, max_credits }\` and charges nothing. Not part of an Idempotency-Key's identity: a replay answers what was recorded.`,
);

/** `Max-Credits` on a job's creation: the job's `max_credits`, as its body may give it. */
export const jobMaxCreditsHeader = /* @__PURE__ */ maxCreditsHeaderOf(
  `The most the whole job may be charged, in credits (0 to ${MAX_CREDITS_CEILING}): the same as the body's \`max_credits\` (both given and different: 400).`,
);

/** `max_credits` in a job's body: the most the whole job may be charged (a JSON integer, 0 to 1,000,000). */
export const maxCreditsField = (description: string) => maxCreditsNumber().register(z.globalRegistry, { description, examples: [100] });

const WEBHOOK_ID_RULE = 'must be a notification endpoint id: "whk_" followed by 32 lowercase hex digits';

/** A notification endpoint's id in a path. */
export const webhookIdParam = /* @__PURE__ */ z
  .string()
  .check(atMost(36, WEBHOOK_ID_RULE), z.regex(WEBHOOK_ID_PATTERN, WEBHOOK_ID_RULE))
  .register(z.globalRegistry, { description: 'the notification endpoint id', examples: ['whk_0123456789abcdef0123456789abcdef'] });

const PURCHASE_ID_RULE = 'must be a purchase id: "pur_" followed by 26 lowercase letters and digits';

/** A credit purchase's id in a path. */
export const purchaseIdParam = /* @__PURE__ */ z
  .string()
  .check(atMost(30, PURCHASE_ID_RULE), z.regex(/^pur_[0-9a-z]{26}$/, PURCHASE_ID_RULE))
  .register(z.globalRegistry, { description: 'the purchase id', examples: ['pur_0mhx5k2a9b0123456789abcdef'] });

const INVITATION_ID_RULE = 'must be an invitation id: "inv_" followed by 32 lowercase hex digits';

/** An invitation's id, in a path or a body. */
export const invitationIdParam = /* @__PURE__ */ z
  .string()
  .check(atMost(36, INVITATION_ID_RULE), z.regex(/^inv_[0-9a-f]{32}$/, INVITATION_ID_RULE))
  .register(z.globalRegistry, { description: 'the invitation id', examples: ['inv_019a2b3c4d5e0123456789abcdef0123'] });
