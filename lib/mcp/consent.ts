/**
 * Consent before an expensive call (docs/mcp.md): a tool call quoted above the caller's
 * `confirm_above` (the lower of the organization's and the API key's) runs only once the user
 * agreed, asked before anything is charged or a job exists. A modern client that declares form
 * elicitation is asked through an `input_required` result and retries with the answer and the
 * `requestState`; any other client gets an `isError` result `confirmation_required` with a
 * `confirm_token` the agent passes back as the `_confirm_token` argument.
 *
 * Both are sealed with the MCP consent key (habit 19: a key of its own, lib/config.ts
 * `mcpConsentKeySource`; whoever holds it can let an agent spend above its owner's threshold, and
 * rotating it ends only the consents of the last 10 minutes), bound to the organization, the
 * caller, the tool, a digest of the arguments and the cost consented, and valid 10 minutes. Each
 * carries a nonce whose use is put once, by the transaction of what it allows (the charge, or the
 * job's creation): of two calls with one, one runs. The gate reads nothing from the table.
 */
import { randomUUID } from 'node:crypto';
import { type ConfirmAbove, confirmAboveOf } from '../billing/balance.ts';
import type { ChargeConsent } from '../billing/paid-run.ts';
import { mcpConsentKeySource } from '../config.ts';
import { consentUsePut } from '../db/consents.ts';
import { canonicalHash } from '../db/idempotency.ts';
import type { Organization } from '../db/organizations.ts';
import { type ConfirmationProblem, confirmationInvalid, consentDeclined, ServiceError } from '../errors.ts';
import { keyedSealer } from '../oauth/sealing-key.ts';
import { ErrorCode } from './jsonrpc.ts';
import { JsonRpcError } from './protocol-errors.ts';
import type { McpScope } from './scope.ts';

/** The argument that carries a confirmation token back (documented on the tools while a threshold applies). */
export const CONFIRM_TOKEN_ARGUMENT = '_confirm_token';
/** How long a consent asked for may be given. */
export const CONSENT_TTL_MS = 10 * 60_000;
/** The key of the one input request an `input_required` result makes. */
const INPUT_KEY = 'consent';

const sealer = keyedSealer('the MCP consent key', mcpConsentKeySource);
/** A token is no requestState, and the other way round: each is sealed for its own purpose. */
const PURPOSE = { token: 'mcp-confirm-token', state: 'mcp-request-state' } as const;
type Form = keyof typeof PURPOSE;

/** What a consent binds: organization, caller, tool, arguments' digest, cost consented, expiry (epoch ms), nonce. */
interface Bound {
  o: string;
  c: string;
  t: string;
  d: string;
  q: number;
  e: number;
  n: string;
}

/** The user's answer to a form elicitation, as a modern retry carries it. */
export type ConsentAnswer = 'accept' | 'decline' | 'missing';

/** The consent a call presents: a `_confirm_token` argument, or a modern retry's `requestState` and answer. */
export type Presented = { form: 'token'; value: unknown } | { form: 'state'; value: unknown; answer: ConsentAnswer };

/** What a call is: its tool, its arguments' digest, and the consent it presents, if any. */
export interface ConsentCall {
  tool: string;
  digest: string;
  presented?: Presented | undefined;
}

/** The call needs a consent it does not carry: its quote, whose threshold it passes, and the balance. */
export class ConsentNeeded extends Error {
  constructor(
    readonly cost: number,
    readonly threshold: ConfirmAbove,
    readonly balance: number,
  ) {
    super('consent needed');
    this.name = 'ConsentNeeded';
  }
}

/** A 2026-07-28 call's question to its user: the `input_required` result, answered as it is. */
export class InputRequired extends Error {
  constructor(readonly result: Record<string, unknown>) {
    super('input required');
    this.name = 'InputRequired';
  }
}

/**
 * What a consent is bound to of the arguments: all of them but the token (`_fields` included),
 * and the `_meta` members that change what the call may be charged.
 */
export const argumentsDigest = (tool: string, args: Record<string, unknown>, meta: Record<string, unknown> | undefined): string =>
  canonicalHash({ tool, arguments: args, max_age: meta?.max_age ?? null, max_credits: meta?.max_credits ?? null });

/** The user's answer in a retry's `inputResponses`: accepted only as `accept` with `confirm: true`. */
export function answerOf(responses: unknown): ConsentAnswer {
  const response = (responses as Record<string, unknown> | null | undefined)?.[INPUT_KEY] as Record<string, unknown> | undefined;
  if (response === null || typeof response !== 'object') return 'missing';
  if (response.action === 'decline' || response.action === 'cancel') return 'decline';
  if (response.action !== 'accept') return 'missing';
  const confirm = (response.content as Record<string, unknown> | undefined)?.confirm;
  return confirm === true ? 'accept' : confirm === false ? 'decline' : 'missing';
}

/** Whether a modern request's client capabilities declare form elicitation (an empty `elicitation` is form, as 2025-06-18 had it). */
export function declaresFormElicitation(capabilities: Record<string, unknown>): boolean {
  const elicitation = capabilities.elicitation;
  if (elicitation === null || typeof elicitation !== 'object' || Array.isArray(elicitation)) return false;
  const modes = elicitation as Record<string, unknown>;
  return modes.form !== undefined || modes.url === undefined;
}

const stateRefused = (problem: string) => new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: requestState ${problem}`);

/** Why a presented consent confirms nothing: a token's `confirmation_invalid`, a requestState's -32602. */
const refused = (form: Form, problem: ConfirmationProblem): Error =>
  form === 'token'
    ? confirmationInvalid(problem)
    : stateRefused(problem === 'malformed' ? 'is not one this server issued' : `is ${problem}`);

async function opened(presented: Presented, scope: McpScope, call: ConsentCall, nowMs: number): Promise<Bound> {
  const bound = typeof presented.value === 'string' ? await sealer.open<Bound>(PURPOSE[presented.form], presented.value) : null;
  if (!bound) throw refused(presented.form, 'malformed');
  if (bound.o !== scope.orgId || bound.c !== scope.caller.userId || bound.t !== call.tool || bound.d !== call.digest) {
    throw refused(presented.form, 'mismatch');
  }
  if (bound.e <= nowMs) throw refused(presented.form, 'expired');
  return bound;
}

/**
 * The consent step of a run or a job's creation (lib/social/run.ts, lib/jobs/create-job.ts):
 * nothing under the threshold; above it, the consent presented (spent by the charge's own
 * transaction), or ConsentNeeded; a bad token or state is refused, nothing charged.
 */
export const consentGate =
  (scope: McpScope, call: ConsentCall, now = Date.now) =>
  async (cost: number, org: Organization): Promise<ChargeConsent | undefined> => {
    const threshold = confirmAboveOf(org, await scope.caller.apiKey?.grant);
    if (!threshold || cost <= threshold.credits) return undefined;
    const needed = new ConsentNeeded(cost, threshold, org.credits);
    const { presented } = call;
    if (!presented) throw needed;
    const bound = await opened(presented, scope, call, now());
    if (presented.form === 'state' && presented.answer === 'decline') throw consentDeclined();
    // No answer yet, or a cost above the one consented: ask again.
    if ((presented.form === 'state' && presented.answer === 'missing') || cost > bound.q) throw needed;
    // Spent already: a token says so, a requestState asks again.
    return {
      item: consentUsePut(bound.n, bound.e, org.id, new Date(now())),
      refusal: presented.form === 'token' ? confirmationInvalid('used') : needed,
    };
  };

/** A consent to `needed`, sealed for `form`, and when it expires. */
async function issued(form: Form, scope: McpScope, call: ConsentCall, needed: ConsentNeeded, nowMs: number) {
  const bound: Bound = {
    o: scope.orgId,
    c: scope.caller.userId,
    t: call.tool,
    d: call.digest,
    q: needed.cost,
    e: nowMs + CONSENT_TTL_MS,
    n: randomUUID(),
  };
  return { sealed: await sealer.seal(PURPOSE[form], bound), expiresAt: new Date(bound.e).toISOString() };
}

const credits = (n: number) => `${n} credit${n === 1 ? '' : 's'}`;
const whose = (threshold: ConfirmAbove) => (threshold.scope === 'api_key' ? 'this API key' : 'the organization');

/** The refusal that asks the agent to ask its user, with the token that confirms this very call. */
export async function confirmationRequired(scope: McpScope, call: ConsentCall, needed: ConsentNeeded, now = Date.now()) {
  const { sealed, expiresAt } = await issued('token', scope, call, needed, now);
  const { cost, threshold, balance } = needed;
  return new ServiceError(
    'confirmation_required',
    `${call.tool} costs ${credits(cost)}, above the ${credits(threshold.credits)} that ${whose(threshold)} may spend on one call without consent (balance ${balance}); nothing was charged. Ask the user whether to spend ${credits(cost)}; if they agree, call ${call.tool} again with the same arguments plus "${CONFIRM_TOKEN_ARGUMENT}" set to data.confirm_token (valid 10 minutes, once).`,
    {
      data: {
        cost,
        confirm_above: threshold.credits,
        scope: threshold.scope === 'api_key' ? 'api_key' : 'organization',
        balance,
        confirm_token: sealed,
        expires_at: expiresAt,
      },
    },
  );
}

/** What the call is for, in the question a user reads: its arguments, cut short. */
function inputSummary(args: Record<string, unknown>): string {
  const text = JSON.stringify(args);
  return text.length <= 120 ? text : `${text.slice(0, 117)}…`;
}

/** A 2026-07-28 `input_required` result: the question as a form elicitation, and the state its retry brings back. */
export async function inputRequired(
  scope: McpScope,
  call: ConsentCall,
  args: Record<string, unknown>,
  needed: ConsentNeeded,
  now = Date.now(),
): Promise<Record<string, unknown>> {
  const { sealed } = await issued('state', scope, call, needed, now);
  return {
    resultType: 'input_required',
    inputRequests: {
      [INPUT_KEY]: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: `${call.tool} for ${inputSummary(args)} costs ${credits(needed.cost)} (balance ${needed.balance}). Run it?`,
          requestedSchema: {
            type: 'object',
            properties: { confirm: { type: 'boolean', title: `Spend ${credits(needed.cost)}` } },
            required: ['confirm'],
          },
        },
      },
    },
    requestState: sealed,
  };
}
