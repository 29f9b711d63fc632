/**
 * The fault-injection matrix (docs/failure-modes.md). Scenarios cover every route that touches
 * DynamoDB, each path through the table its own: the two reads of billing, the listing, the four
 * restores, paid runs with and without an Idempotency-Key, delivered or failing upstream, a
 * replay, the takeover of a dead attempt's run, MCP tools/list and tools/call. Each scenario's
 * commands are recorded in a clean request; then each command (a "step") is made to fail in each
 * way DynamoDB and the SDK can fail (FAULTS, test/support/inject-failure.ts), one request per
 * cell. Every answer must be a success or a documented error of the documented shape that tells
 * the truth about the money; afterwards the invariants must hold (test/support/ledger.ts), before
 * the sweeper runs and after it runs with its clock past every lease; a restore is never half
 * done; a retry after the fault delivers, and one key never has two charges standing.
 *
 * `npm test` runs a fixed sample: one fault per step, rotating through the kinds so that each
 * scenario meets most of them. `npm run test:long` (CI) and `npm run faults` run every cell
 * (`TEST_DEPTH=full`, test/support/depth.ts); FAULT_MATRIX_REPORT=1 prints the counts and times.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceKind } from '../lib/model.ts';
import { FULL_DEPTH } from './support/depth.ts';
import type { Answer, Call } from './support/http.ts';
import type { FaultKind } from './support/inject-failure.ts';
import { type ScrapeCreatorsStub, STUB_KEY, startScrapeCreatorsStub, vendorError } from './support/scrapecreators-stub.ts';

const stub: ScrapeCreatorsStub = await startScrapeCreatorsStub();
Object.assign(process.env, {
  SOCIAL_PROVIDER: 'http',
  SCRAPECREATORS_BASE_URL: stub.baseUrl,
  SCRAPECREATORS_API_KEY: STUB_KEY,
  RATE_LIMIT_REQUESTS: '1000000',
});
const { chargeUnconfirmed, ERROR_CATALOG, internalError, upstreamFailed, upstreamFailedRefundPending } = await import('../lib/errors.ts');
const { recordKey } = await import('../lib/db/idempotency.ts');
const { deadAttempt } = await import('./support/charges.ts');
const { sweepPendingRuns } = await import('../lib/billing/sweeper.ts');
const { routes } = await import('../lib/routes.ts');
const { FAULT_KINDS, faultApplies, stepFaults } = await import('./support/inject-failure.ts');
const { uniqueId, workspace } = await import('./support/fixtures.ts');
const http = await import('./support/http.ts');
const { handlerOf } = await import('./support/routes.ts');
const { tokenFor } = await import('./support/tokens.ts');
const { idempotencyItem, ledgerProblems, readLedger, standingCharges } = await import('./support/ledger.ts');
const { deleted, live, resourceOf, restoreState, restoreUrl } = await import('./support/resources.ts');

const FULL = FULL_DEPTH;
/** Faults per step in the sample `npm test` runs. */
const SAMPLE_PER_STEP = 1;
/**
 * Cells in flight at once. Each has up to 4 commands in flight, and the client has 50 sockets: the
 * SDK's 1 s connection timeout counts the wait for one, so more would time out the setup of
 * cells on a loaded machine (DynamoDB Local's latency, not its throughput, bounds the run).
 */
const CONCURRENCY = 12;
const OPENING = 10;
const FAILING_HANDLE = 'upstream_fails';
const OPERATION = 'instagram_profile';

// The provider fails for one handle: the run path's refund steps get their own scenarios.
stub.onRequest = (request) => {
  if (request.query.handle === FAILING_HANDLE) stub.next({ kind: 'status', status: 500, body: vendorError(500, 'server_error', 'boom') });
};
afterAll(() => stub.close());

const injector = stepFaults();
afterAll(() => injector.remove());

// ------------------------------------------------------------------------------ scenarios

interface Prepared {
  request: Call;
  /** Paid results delivered before the request under test (a replay's first run). */
  deliveredBefore?: number;
  /** Charges made before the request under test (a replay's first run, a dead attempt's). */
  chargesBefore?: string[];
  /** A restore: the resource as deleted. */
  restore?: { kind: ResourceKind; before: any };
  /** A keyed run: its Idempotency-Key record. */
  key?: ReturnType<typeof recordKey>;
}

interface Scenario {
  name: string;
  route: string;
  prepare(orgId: string, owner: string): Promise<Prepared>;
  /** Problems with a success answer (2xx). */
  success(answer: Answer): string[];
  /** Error codes (with their messages) this scenario may answer when a command fails. */
  errors: { code: string; message: string }[];
  /** The answer delivered a paid result. */
  delivers?(answer: Answer): boolean;
  /** What a clean request answers when it is not a success (the provider fails). */
  cleanError?: { code: string; message: string };
  /** Retry the same request after the sweep: it must succeed (restores, keyed runs). */
  retry?: boolean;
  mcp?: 'list' | 'call';
  /**
   * What cells share, where no fault can change money (DynamoDB Local is the bottleneck; an
   * organization costs two transactions): `org`, one organization for all cells of the scenario,
   * each preparing its own request (a restore, its own resource); `request`, one organization
   * and one prepared request (reads, replays). Paid scenarios share nothing: one ledger per cell.
   */
  share?: 'org' | 'request';
}

const INTERNAL = { code: 'internal_error', message: internalError().message };
const REFUNDED = { code: 'upstream_failed', message: upstreamFailed().message };
const REFUND_DELAYED = { code: 'upstream_failed', message: upstreamFailedRefundPending().message };
const UNCONFIRMED = { code: 'internal_error', message: chargeUnconfirmed().message };

const expectStatus = (answer: Answer, status: number): string[] =>
  answer.status === status ? [] : [`status ${answer.status}, not ${status}`];

const runRequest = (orgId: string, owner: string, handle: string, key?: string): Call => ({
  method: 'POST',
  url: `/social/${OPERATION}?organization_id=${orgId}`,
  token: tokenFor(owner),
  body: { handle },
  ...(key ? { headers: { 'idempotency-key': key } } : {}),
});

const mcpRequest = (orgId: string, owner: string, message: Record<string, unknown>): Call => ({
  method: 'POST',
  url: `/mcp?organization_id=${orgId}`,
  token: tokenFor(owner),
  body: { jsonrpc: '2.0', id: 1, ...message },
  headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
});

const paid = (answer: Answer): string[] => [
  ...expectStatus(answer, 200),
  ...(answer.headers['credits-charged'] === '1' ? [] : [`Credits-Charged ${answer.headers['credits-charged']}`]),
  ...(answer.headers['idempotent-replayed'] === undefined ? [] : ['a paid run says it was replayed']),
  ...(typeof answer.body?.username === 'string' ? [] : ['no profile in the body']),
];

const restoreScenario = (kind: ResourceKind, prepare: (orgId: string, owner: string) => Promise<any>): Scenario => ({
  name: `${kind} restore`,
  route: `Restore${kind[0]!.toUpperCase()}${kind.slice(1)}`,
  prepare: async (orgId, owner) => {
    const before = await prepare(orgId, owner);
    return { request: { method: 'POST', url: restoreUrl(kind, before.id), token: tokenFor(owner) }, restore: { kind, before } };
  },
  success: (answer) => [...expectStatus(answer, 200), ...(resourceOf(kind, answer.body)?.deleted_at === null ? [] : ['not restored'])],
  errors: [INTERNAL],
  retry: true,
  share: 'org',
});

const runScenario = (name: string, options: { key: boolean; fails: boolean }): Scenario => ({
  name,
  route: 'RunSocialOperation',
  prepare: async (orgId, owner) => {
    const key = options.key ? uniqueId('key-') : undefined;
    return {
      request: runRequest(orgId, owner, options.fails ? FAILING_HANDLE : 'nike', key),
      ...(key ? { key: recordKey(orgId, owner, key) } : {}),
    };
  },
  success: paid,
  errors: options.fails ? [INTERNAL, UNCONFIRMED, REFUNDED, REFUND_DELAYED] : [INTERNAL, UNCONFIRMED],
  delivers: (answer) => answer.status === 200,
  retry: options.key && !options.fails,
  ...(options.fails ? { cleanError: REFUNDED } : {}),
});

const SCENARIOS: Scenario[] = [
  {
    name: 'credits',
    route: 'GetCredits',
    prepare: async (orgId, owner) => ({ request: { url: `/organizations/${orgId}/credits`, token: tokenFor(owner) } }),
    success: (answer) => [...expectStatus(answer, 200), ...(answer.body.balance === OPENING ? [] : [`balance ${answer.body.balance}`])],
    share: 'request',
    errors: [INTERNAL],
  },
  {
    name: 'billing events',
    route: 'ListBillingEvents',
    prepare: async (orgId, owner) => ({ request: { url: `/organizations/${orgId}/billing/events?days=1`, token: tokenFor(owner) } }),
    success: (answer) => [...expectStatus(answer, 200), ...(answer.body.events?.length === 1 ? [] : ['not the one grant event'])],
    share: 'request',
    errors: [INTERNAL],
  },
  {
    name: 'operations listing',
    route: 'ListSocialOperations',
    prepare: async (orgId, owner) => ({ request: { url: `/social/operations?organization_id=${orgId}`, token: tokenFor(owner) } }),
    success: (answer) => [...expectStatus(answer, 200), ...(answer.body.operations?.length > 0 ? [] : ['no operations'])],
    share: 'request',
    errors: [INTERNAL],
  },
  restoreScenario('asset', (orgId, owner) => deleted('asset', { orgId, by: owner })),
  restoreScenario('skill', (orgId, owner) => deleted('skill', { orgId, by: owner, source: 'custom', name: uniqueId('skill ') })),
  restoreScenario('conversation', async (orgId, owner) => {
    const project = await live('project', { orgId, by: owner });
    return deleted('conversation', { orgId, by: owner, projectId: project.id });
  }),
  restoreScenario('project', (orgId, owner) => deleted('project', { orgId, by: owner, slug: uniqueId('p-') })),
  runScenario('paid run', { key: false, fails: false }),
  runScenario('paid run with a key', { key: true, fails: false }),
  runScenario('paid run failing upstream', { key: false, fails: true }),
  runScenario('paid run with a key failing upstream', { key: true, fails: true }),
  {
    name: 'replay of a keyed run',
    route: 'RunSocialOperation',
    prepare: async (orgId, owner) => {
      const key = uniqueId('key-');
      const request = runRequest(orgId, owner, 'nike', key);
      const first = await http.call(await handlerOf(routeNamed('RunSocialOperation')), request);
      if (first.status !== 200) throw new Error(`the first run answered ${first.status}`);
      const chargesBefore = (await readLedger(orgId)).charges.map((charge) => charge.id);
      return { request, deliveredBefore: 1, chargesBefore, key: recordKey(orgId, owner, key) };
    },
    success: (answer) => [
      ...expectStatus(answer, 200),
      ...(answer.headers['idempotent-replayed'] === 'true' && answer.headers['credits-charged'] === '0' ? [] : ['not a replay']),
    ],
    share: 'request',
    errors: [INTERNAL],
    retry: true,
  },
  {
    // An attempt that died mid-call 10 minutes ago (charged and claimed its key, then its function
    // was stopped; its lease is over): the request under test retries with its key and takes the
    // run over, paid by that charge.
    name: 'takeover of a dead keyed run',
    route: 'RunSocialOperation',
    prepare: async (orgId, owner) => {
      const key = uniqueId('key-');
      await deadAttempt({ orgId, userId: owner, key, operation: OPERATION, input: { handle: 'nike' }, at: new Date(Date.now() - 600_000) });
      const chargesBefore = (await readLedger(orgId)).charges.map((charge) => charge.id);
      return { request: runRequest(orgId, owner, 'nike', key), chargesBefore, key: recordKey(orgId, owner, key) };
    },
    success: paid,
    errors: [INTERNAL],
    delivers: (answer) => answer.status === 200,
    retry: true,
  },
  {
    name: 'MCP tools/list',
    route: 'Mcp',
    prepare: async (orgId, owner) => ({ request: mcpRequest(orgId, owner, { method: 'tools/list', params: {} }) }),
    success: (answer) => (answer.body.result?.tools?.length > 0 ? [] : ['no tools listed']),
    share: 'request',
    errors: [INTERNAL],
    mcp: 'list',
  },
  {
    name: 'MCP tools/call',
    route: 'Mcp',
    prepare: async (orgId, owner) => ({
      request: mcpRequest(orgId, owner, { method: 'tools/call', params: { name: OPERATION, arguments: { handle: 'nike' } } }),
    }),
    success: (answer) => (answer.body.result?._meta?.credits_charged === 1 ? [] : ['not charged 1']),
    errors: [INTERNAL, UNCONFIRMED],
    delivers: (answer) => answer.body?.result !== undefined && answer.body.result.isError !== true,
    mcp: 'call',
  },
  {
    name: 'MCP tools/call failing upstream',
    route: 'Mcp',
    prepare: async (orgId, owner) => ({
      request: mcpRequest(orgId, owner, { method: 'tools/call', params: { name: OPERATION, arguments: { handle: FAILING_HANDLE } } }),
    }),
    success: () => ['a tool call failing upstream succeeded'],
    errors: [INTERNAL, UNCONFIRMED, REFUNDED, REFUND_DELAYED],
    cleanError: REFUNDED,
    delivers: (answer) => answer.body?.result !== undefined && answer.body.result.isError !== true,
    mcp: 'call',
  },
];

function routeNamed(name: string) {
  const route = routes.find((candidate) => candidate.name === name);
  if (!route) throw new Error(`no route ${name}`);
  return route;
}

// ------------------------------------------------------------------------------ answers

/** An error body of the documented shape: catalog status, no internals, request id, no Retry-After on a 5xx. */
function errorBodyProblems(body: any, status: number | undefined, headers: Record<string, string>, allowed: Scenario['errors']): string[] {
  const problems: string[] = [];
  if (!allowed.some((error) => error.code === body?.code && error.message === body?.message)) {
    problems.push(`answered ${JSON.stringify(body)}, not one of ${allowed.map((error) => error.code).join(', ')} with its message`);
  }
  const expectedStatus = ERROR_CATALOG[body?.code as keyof typeof ERROR_CATALOG]?.status;
  if (status !== undefined && status !== expectedStatus) problems.push(`status ${status} for ${body?.code} (catalog: ${expectedStatus})`);
  const keys = Object.keys(body ?? {}).sort();
  if (JSON.stringify(keys) !== JSON.stringify(['code', 'message', 'request_id'])) problems.push(`error body keys ${keys.join(', ')}`);
  if (body?.request_id !== headers['x-request-id']) problems.push('request_id is not the x-request-id header');
  if (expectedStatus >= 500 && headers['retry-after'] !== undefined) problems.push('a 5xx with Retry-After');
  return problems;
}

/** What is wrong with an answer; and the error it carries, if any (for the money checks). */
function answerProblems(scenario: Scenario, answer: Answer): { problems: string[]; error?: { code: string; message: string } } {
  if (answer.headers['content-type'] !== 'application/json')
    return { problems: [`content-type ${answer.headers['content-type']}: ${answer.raw}`] };
  if (scenario.mcp) {
    // MCP answers 200 with JSON-RPC: a listing that failed is a JSON-RPC error carrying the
    // error body; a tool call that failed is a tool result with isError and the body as text.
    const { body } = answer;
    const envelope = [...expectStatus(answer, 200), ...(body?.jsonrpc === '2.0' && body.id === 1 ? [] : ['not a JSON-RPC answer to id 1'])];
    if (body?.error) {
      if (scenario.mcp !== 'list')
        return { problems: [...envelope, `a tool call answered a protocol error: ${JSON.stringify(body.error)}`] };
      const data = body.error.data ?? {};
      const problems = [...envelope, ...errorBodyProblems(data, undefined, { 'x-request-id': data.request_id }, scenario.errors)];
      // The SDK puts "MCP error -32603: " in front of the message it is given.
      if (body.error.code !== -32603 || !String(body.error.message).endsWith(`${data.code}: ${data.message}`))
        problems.push(`JSON-RPC error ${JSON.stringify(body.error)}`);
      return { problems, error: data };
    }
    if (body?.result?.isError) {
      const refusal = JSON.parse(body.result.content?.[0]?.text ?? 'null');
      return {
        problems: [
          ...envelope,
          ...errorBodyProblems(refusal, undefined, { 'x-request-id': answer.headers['x-request-id']! }, scenario.errors),
        ],
        error: refusal,
      };
    }
    return { problems: [...envelope, ...scenario.success(answer)] };
  }
  if (answer.status < 300) return { problems: scenario.success(answer) };
  return { problems: errorBodyProblems(answer.body, answer.status, answer.headers, scenario.errors), error: answer.body };
}

// ------------------------------------------------------------------------------ cells

interface Cell {
  scenario: Scenario;
  step: number;
  command: string;
  kind: FaultKind;
}

interface Outcome {
  cell: Cell;
  orgId: string;
  owner: string;
  prepared: Prepared;
  answer?: Answer;
  delivered: number;
  problems: string[];
}

/** Faults a retry takes away: the outcome must be the clean request's. */
const RETRIED_AWAY = new Set<FaultKind>(['conflict', 'lost-retried']);

const label = (cell: Cell) => `step ${cell.step} ${cell.command} × ${cell.kind}`;

/** A scenario's organization and prepared request, for the cells that share them (Scenario.share). */
interface Shared {
  orgId: string;
  owner: string;
  prepared: Prepared;
}

/** The clean request's commands, and what the scenario's cells share, per scenario. */
const recorded = new Map<Scenario, { commands: string[]; shared: Shared }>();

/** Records the scenario's commands in a clean request; its organization is then the one shared cells use. */
async function recordClean(scenario: Scenario): Promise<{ commands: string[]; shared: Shared }> {
  const { orgId, users } = await workspace({ credits: OPENING, roles: ['owner'] });
  const prepared = await scenario.prepare(orgId, users.owner);
  const handler = await handlerOf(routeNamed(scenario.route));
  const { result, log } = await injector.run(undefined, () => http.call(handler, prepared.request));
  const { problems, error } = answerProblems(scenario, result);
  if (error?.message !== scenario.cleanError?.message) problems.push(`answered ${JSON.stringify(error)}`);
  if (problems.length > 0) {
    throw new Error(`${scenario.name}: the clean request failed: ${problems.join('; ')} ${result.raw.slice(0, 300)}`);
  }
  const delivered = (prepared.deliveredBefore ?? 0) + (scenario.delivers?.(result) ? 1 : 0);
  return { commands: log.commands, shared: { orgId, owner: users.owner, prepared: { ...prepared, deliveredBefore: delivered } } };
}

/**
 * Every cell, or the fixed sample: SAMPLE_PER_STEP faults per step, taken in turn from the kinds
 * that apply (one turn for reads, one for writes, across scenarios in order), so that the sample
 * spreads every kind over the matrix and is the same on every run.
 */
function cellsOf(scenario: Scenario, commands: string[], turns: Map<string, number>): Cell[] {
  return commands.flatMap((command, i) => {
    const kinds = FAULT_KINDS.filter((kind) => faultApplies(kind, command));
    const turn = turns.get(kinds.join()) ?? 0;
    turns.set(kinds.join(), turn + SAMPLE_PER_STEP);
    const picked = FULL
      ? kinds
      : Array.from({ length: Math.min(SAMPLE_PER_STEP, kinds.length) }, (_, j) => kinds[(turn + j) % kinds.length]!);
    return picked.map((kind) => ({ scenario, step: i + 1, command, kind }));
  });
}

async function runCell(cell: Cell): Promise<Outcome> {
  const { share } = cell.scenario;
  const shared = recorded.get(cell.scenario)!.shared;
  const { orgId, owner } = share
    ? shared
    : await workspace({ credits: OPENING, roles: ['owner'] }).then(({ orgId, users }) => ({ orgId, owner: users.owner }));
  const prepared = share === 'request' ? shared.prepared : await cell.scenario.prepare(orgId, owner);
  const outcome: Outcome = { cell, orgId, owner, prepared, delivered: prepared.deliveredBefore ?? 0, problems: [] };
  const handler = await handlerOf(routeNamed(cell.scenario.route));
  try {
    const { result, log } = await injector.run({ step: cell.step, kind: cell.kind }, () => http.call(handler, prepared.request));
    // A write the service gave up on may still land: the invariants are checked once it has.
    await Promise.all(log.inFlight);
    outcome.answer = result;
    if (log.faulted !== cell.command)
      outcome.problems.push(`the fault hit ${log.faulted ?? 'nothing'} (commands: ${log.commands.join(', ')})`);
    if (cell.kind === 'lost-retried' && log.attempts !== 2) outcome.problems.push(`the SDK made ${log.attempts} attempts, not 2`);
  } catch (error) {
    // `call` throws when an answer breaks the OpenAPI contract.
    outcome.problems.push(String((error as Error).message ?? error));
    return outcome;
  }
  const { problems, error } = answerProblems(cell.scenario, outcome.answer);
  outcome.problems.push(...problems);
  // One conflict, or one attempt whose answer was lost, is retried away (by the service, by the
  // SDK): the answer is the clean one.
  if (RETRIED_AWAY.has(cell.kind) && error?.message !== cell.scenario.cleanError?.message) {
    outcome.problems.push(`not retried away: answered ${JSON.stringify(error)}`);
  }
  if (cell.scenario.delivers?.(outcome.answer)) outcome.delivered += 1;
  outcome.problems.push(...(await stateProblems(outcome, error)));
  return outcome;
}

/** Before the sweep: the money invariants, an answer that tells the truth about the charge, restores whole. */
async function stateProblems(outcome: Outcome, error: { code: string; message: string } | undefined): Promise<string[]> {
  const ledger = await readLedger(outcome.orgId);
  const problems = ledgerProblems(ledger, outcome.delivered);
  const before = new Set(outcome.prepared.chargesBefore ?? []);
  const fresh = ledger.charges.filter((charge) => !before.has(charge.id));
  if (fresh.length > 1) problems.push(`${fresh.length} charges for one request`);
  // An answer that invites a retry now must not leave a charge to refund: the client would pay
  // twice until the sweeper runs. Only a write that landed after the answer (`slow`) can.
  if (error?.message === INTERNAL.message && outcome.cell.kind !== 'slow' && fresh.some((charge) => ledger.pending.has(charge.id))) {
    problems.push('answered "retry with backoff" with a charge still pending');
  }
  if (RETRIED_AWAY.has(outcome.cell.kind) && ledger.pending.size > 0)
    problems.push(`not retried away: ${ledger.pending.size} run(s) left pending`);
  const last = ledger.charges.at(-1);
  if (error?.message === REFUNDED.message && !(last && ledger.refunds.has(last.id)))
    problems.push('says "refunded" but no refund was written');
  // "Delayed" is all the run can say when its refund write failed or was not answered: the
  // refund may have been written after all (`lost`), else the run is pending.
  if (error?.message === REFUND_DELAYED.message && !(last && (ledger.pending.has(last.id) || ledger.refunds.has(last.id)))) {
    problems.push('says "refund delayed" but the charge is neither pending nor refunded');
  }
  if (outcome.prepared.key) {
    const record = await idempotencyItem(outcome.prepared.key);
    if (record?.state === 'in_progress' && !(record.chargeId && ledger.pending.has(record.chargeId))) {
      problems.push(`the key is claimed in progress by charge ${record.chargeId}, which is not pending`);
    }
    if (record?.state === 'completed' && !standingCharges(ledger).some((charge) => charge.id === record.chargeId)) {
      problems.push(`the key completed with charge ${record.chargeId}, which is not standing`);
    }
  }
  if (outcome.prepared.restore) {
    const state = await restoreState(outcome.prepared.restore.kind, outcome.prepared.restore.before);
    if (state !== 'restored' && state !== 'deleted') problems.push(state);
    if (outcome.answer?.status === 200 && state !== 'restored') problems.push(`answered 200 but the resource is ${state}`);
  }
  return problems;
}

/** After the sweep: nothing pending, nothing paid without a result; a retry delivers, once. */
async function afterSweepProblems(outcome: Outcome): Promise<string[]> {
  const ledger = await readLedger(outcome.orgId);
  const problems = ledgerProblems(ledger, outcome.delivered).map((problem) => `after the sweep: ${problem}`);
  if (ledger.pending.size > 0) problems.push(`after the sweep: ${ledger.pending.size} run(s) still pending`);
  if (outcome.delivered === 0 && ledger.credits !== OPENING) problems.push(`after the sweep: balance ${ledger.credits}, nothing delivered`);
  // A result goes out only when its charge stands, and every charge left standing had its result delivered.
  const standing = standingCharges(ledger).length;
  if (standing !== outcome.delivered)
    problems.push(`after the sweep: ${standing} charge(s) standing for ${outcome.delivered} result(s) delivered`);
  if (outcome.prepared.key) {
    const record = await idempotencyItem(outcome.prepared.key);
    if (record?.state === 'in_progress') problems.push('after the sweep: the key is still claimed in progress');
  }
  if (!outcome.cell.scenario.retry || outcome.problems.length > 0) return problems;
  const retried = await http.call(await handlerOf(routeNamed(outcome.cell.scenario.route)), outcome.prepared.request);
  if (retried.status !== 200) problems.push(`the retry answered ${retried.status} ${retried.raw.slice(0, 200)}`);
  if (outcome.prepared.key) {
    const after = await readLedger(outcome.orgId);
    if (standingCharges(after).length !== 1)
      problems.push(`after the retry: ${standingCharges(after).length} charges standing for one key`);
    problems.push(...ledgerProblems(after, outcome.delivered + 1).map((problem) => `after the retry: ${problem}`));
  }
  if (outcome.prepared.restore) {
    const state = await restoreState(outcome.prepared.restore.kind, outcome.prepared.restore.before);
    if (state !== 'restored') problems.push(`after the retry: ${state}`);
  }
  return problems;
}

const errorText = (error: unknown): string => (error instanceof Error ? (error.stack ?? error.message) : String(error));

/** A cell whose setup or checks threw: reported as its problem, so that the other cells still run. */
const broken = (cell: Cell, error: unknown): Outcome => ({
  cell,
  orgId: '',
  owner: '',
  prepared: { request: { url: '' } },
  delivered: 0,
  problems: [`the cell broke: ${errorText(error)}`],
});

/** Runs `work` over `items`, at most CONCURRENCY at once. */
async function pool<T, R>(items: T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i]!);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return results;
}

// ------------------------------------------------------------------------------ the run

const cells: Cell[] = [];
const records = await pool(SCENARIOS, recordClean);
const turns = new Map<string, number>();
for (const [index, scenario] of SCENARIOS.entries()) {
  recorded.set(scenario, records[index]!);
  cells.push(...cellsOf(scenario, records[index]!.commands, turns));
}

const outcomes: Outcome[] = [];
let sweep: Awaited<ReturnType<typeof sweepPendingRuns>> | undefined;
const timings = { cellsMs: 0, sweepMs: 0, afterMs: 0 };

beforeAll(async () => {
  let started = performance.now();
  outcomes.push(...(await pool(cells, (cell) => runCell(cell).catch((error: unknown) => broken(cell, error)))));
  timings.cellsMs = performance.now() - started;
  // Every request has answered: sweep as of a time past every lease and due time.
  started = performance.now();
  sweep = await sweepPendingRuns({ now: new Date(Date.now() + 3_600_000) });
  timings.sweepMs = performance.now() - started;
  started = performance.now();
  await pool(outcomes, async (outcome) => {
    if (!outcome.orgId) return;
    outcome.problems.push(...(await afterSweepProblems(outcome).catch((error: unknown) => [`after the sweep: ${errorText(error)}`])));
  });
  timings.afterMs = performance.now() - started;
}, 120_000);

afterAll(() => {
  if (process.env.FAULT_MATRIX_REPORT) {
    const steps = [...recorded.values()].reduce((sum, { commands }) => sum + commands.length, 0);
    const kinds = FAULT_KINDS.map((kind) => `${kind} ${cells.filter((cell) => cell.kind === kind).length}`).join(', ');
    for (const [scenario, { commands }] of recorded) {
      const cellCount = cells.filter((cell) => cell.scenario === scenario).length;
      console.log(`${scenario.name} (${cellCount} cells): ${commands.map((command) => command.replace(/Command$/, '')).join(' → ')}`);
    }
    console.log(
      `fault matrix (${FULL ? 'full' : 'sample'}): ${SCENARIOS.length} scenarios, ${steps} steps, ${cells.length} cells (${kinds}); ` +
        `cells ${Math.round(timings.cellsMs)} ms, sweep ${Math.round(timings.sweepMs)} ms (${JSON.stringify(sweep)}), after ${Math.round(timings.afterMs)} ms`,
    );
  }
});

describe(`fault injection (${FULL ? 'every cell' : 'a fixed sample; npm run faults for every cell'})`, () => {
  it('records every scenario clean, and the sweep writes every refund it owes', () => {
    expect([...recorded.values()].every(({ commands }) => commands.length > 0)).toBe(true);
    expect(sweep?.failed).toBe(0);
  });

  it.each(
    SCENARIOS.map((scenario) => [scenario.name, scenario] as const),
  )('%s: every cell answers as documented and keeps the invariants', (_name, scenario) => {
    const mine = outcomes.filter((outcome) => outcome.cell.scenario === scenario);
    expect(mine.length).toBe(cells.filter((cell) => cell.scenario === scenario).length);
    expect(
      mine.filter((outcome) => outcome.problems.length > 0).map((outcome) => `${label(outcome.cell)}: ${outcome.problems.join('; ')}`),
    ).toEqual([]);
  });
});
