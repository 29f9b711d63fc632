/**
 * One hot organization: many paid runs at once against one balance (docs/scaling.md). Every run
 * is a POST /social/{operation} through the whole handler; their charges are transactions on
 * the same organization item and the same monthly spend counter, so they conflict, and the
 * charge retries them (lib/db/credits.ts). Counted here: transaction conflicts (an SDK
 * middleware sees every cancelled TransactWriteItems), failures (any answer but 200), and the
 * balance, spend counter and charge events afterwards, which must add up exactly.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../lib/config.ts';
import { db, tableName } from '../../lib/db/client.ts';
import { readMembersSpend, readOrgSpend } from '../../lib/db/credits.ts';
import { billingEventsPrefix, orgKey } from '../../lib/db/keys.ts';
import { laneKey, readLanes } from '../../lib/db/lanes.ts';
import { addMembership } from '../../lib/db/memberships.ts';
import { createOrganization, getOrganization } from '../../lib/db/organizations.ts';
import type { HttpEvent, HttpResult } from '../../lib/http/types.ts';
import { buildHttpEvent, localContext } from '../../lib/local/apigw-event.ts';
import { findOperation } from '../../lib/social/operations.ts';
import { modelTransactionConflicts } from './conflict-model.ts';
import { forEachIndex } from './pool.ts';
import { latencyOf } from './stats.ts';

const OPERATION = 'x_profile';

export interface HotOptions {
  /** Paid runs sent at once. */
  runs: number;
  /** `model`: DynamoDB's transaction conflicts made to happen (scripts/bench/conflict-model.ts); `local`: DynamoDB Local as it is (it serializes transactions). */
  conflicts: 'model' | 'local';
  /** Members the runs are spread over (round robin). */
  users: number;
  tokenFor(userId: string): string;
}

export interface HotResult {
  runs: number;
  conflictsModelled: boolean;
  users: number;
  wallMs: number;
  /** Paid runs answered per second (all of them in flight at once). */
  throughput: number;
  latency: ReturnType<typeof latencyOf>;
  /** Answers other than 200, by status. */
  failures: Record<string, number>;
  failed: number;
  /** TransactWriteItems cancelled by a TransactionConflict (each one retried, or a failure). */
  conflicts: number;
  /** Items found held by another transaction, by kind (ORG: the balance; SPEND: a counter; lane; MEMBER…). */
  heldItems: Record<string, number>;
  commandsPerRun: Record<string, number>;
  /** Charge transactions sent (first attempts and retries). */
  transactions: number;
  /** The most attempts one charge needed. */
  maxAttempts: number;
  /** How long a committed charge transaction took, sent to answered (what holds the balance item). */
  transactionMs: ReturnType<typeof latencyOf>;
  /** wall time / (runs × median committed transaction): how far from back-to-back charges the burst was. */
  drainFactor: number;
  balance: { opening: number; expected: number; final: number; exact: boolean };
  /** The organization's spend and the sum of its members', as clients read them. */
  spend: { expected: number; counted: number; members: number };
  /** Lanes filled during the burst, and the credits they hold at its end (counted in the balance). */
  lanes: { filled: number; holding: number };
  chargeEvents: number;
}

const hex = () => randomBytes(6).toString('hex');

/** The organization an item of the burst belongs to, from its partition key (`<KIND>#<org>`). */
const orgOf = (key: Record<string, unknown>): string => String(key.PK).slice(String(key.PK).indexOf('#') + 1);

/** Counts cancelled transactions and their conflicts, per request (by the ClientRequestToken every charge attempt shares). */
function countConflicts() {
  const counts = {
    conflicts: 0,
    transactions: 0,
    attemptsByToken: new Map<string, number>(),
    committedMs: [] as number[],
    /** Which items were held, by kind (the sort key's or partition's first word): where the burst still conflicts. */
    heldItems: {} as Record<string, number>,
    /** Every command sent during the burst, by name: what a run costs DynamoDB. */
    commands: {} as Record<string, number>,
  };
  const name = `hot-org-conflicts-${hex()}`;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName);
      counts.commands[command] = (counts.commands[command] ?? 0) + 1;
      if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
      counts.transactions += 1;
      const token = String((args.input as { ClientRequestToken?: string }).ClientRequestToken ?? '');
      counts.attemptsByToken.set(token, (counts.attemptsByToken.get(token) ?? 0) + 1);
      const sent = performance.now();
      try {
        const result = await next(args);
        counts.committedMs.push(performance.now() - sent);
        return result;
      } catch (error) {
        const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
        if (reasons.some((reason) => reason.Code === 'TransactionConflict')) counts.conflicts += 1;
        const items = (args.input as { TransactItems?: Record<string, { Key?: Record<string, unknown> }>[] }).TransactItems ?? [];
        reasons.forEach((reason, i) => {
          if (reason.Code !== 'TransactionConflict') return;
          const key = Object.values(items[i] ?? {})[0]?.Key;
          const kind = key && key.PK === laneKey(orgOf(key), '', 0).PK ? 'lane' : (String(key?.SK ?? '?').split('#')[0] ?? '?');
          counts.heldItems[kind] = (counts.heldItems[kind] ?? 0) + 1;
        });
        throw error;
      }
    },
    // Outside the conflict model (which is innermost), so that it counts modelled cancellations too.
    { step: 'initialize', priority: 'normal', name },
  );
  return { counts, stop: () => db().middlewareStack.remove(name) };
}

export async function runHotOrganization(options: HotOptions, runHandler: (event: HttpEvent, context: unknown) => Promise<HttpResult>) {
  const cost = findOperation(OPERATION).cost;
  const orgId = `org_hot_${hex()}`;
  // BENCH_HOT_HEADROOM: the opening balance as a multiple of what the burst spends (1: it ends with 100 credits left).
  const opening = Math.round(options.runs * cost * Number(process.env.BENCH_HOT_HEADROOM ?? 1)) + 100;
  const now = new Date();
  await createOrganization({ id: orgId, credits: opening });
  const users = Array.from({ length: options.users }, () => `user_hot_${hex()}`);
  await forEachIndex(users.length, 8, (i) => addMembership({ orgId, userId: users[i]!, role: 'editor' }));
  const events = Array.from({ length: options.runs }, (_, i) =>
    buildHttpEvent({
      method: 'POST',
      path: `/social/${OPERATION}`,
      routeKey: 'POST /social/{operation}',
      rawQueryString: `organization_id=${orgId}`,
      pathParameters: { operation: OPERATION },
      headers: { authorization: `Bearer ${options.tokenFor(users[i % users.length]!)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ handle: 'nasa' }),
    }),
  );

  await noTimeoutWaitingForASocket();

  const counter = countConflicts();
  const stopModel = options.conflicts === 'model' ? modelTransactionConflicts(db()) : () => undefined;
  const latencies: number[] = [];
  const failures: Record<string, number> = {};
  const began = performance.now();
  try {
    await Promise.all(
      events.map(async (event) => {
        const t0 = performance.now();
        const result = await runHandler(event, localContext('hot-org'));
        latencies.push(performance.now() - t0);
        if (result.statusCode !== 200) {
          const key = `${result.statusCode} ${(JSON.parse(String(result.body)) as { code?: string }).code ?? ''}`.trim();
          failures[key] = (failures[key] ?? 0) + 1;
        }
      }),
    );
  } finally {
    stopModel();
    counter.stop();
  }
  const wallMs = performance.now() - began;

  const failed = Object.values(failures).reduce((sum, count) => sum + count, 0);
  const charged = options.runs - failed;
  // Read as clients read them: a hot organization's balance and spend count its lanes (lib/db/lanes.ts).
  const [org, spend, members, chargeEvents, lanes] = await Promise.all([
    getOrganization(orgId),
    readOrgSpend(orgId, now),
    readMembersSpend(orgId, now),
    countChargeEvents(orgId),
    readLanes(orgId),
  ]);
  const final = Number(org?.credits);
  const expected = opening - charged * cost;
  return {
    runs: options.runs,
    conflictsModelled: options.conflicts === 'model',
    users: options.users,
    wallMs,
    throughput: options.runs / (wallMs / 1000),
    latency: latencyOf(latencies),
    failures,
    failed,
    conflicts: counter.counts.conflicts,
    transactions: counter.counts.transactions,
    heldItems: counter.counts.heldItems,
    commandsPerRun: Object.fromEntries(
      Object.entries(counter.counts.commands).map(([name, n]) => [name.replace(/Command$/, ''), +(n / options.runs).toFixed(2)]),
    ),
    maxAttempts: Math.max(0, ...counter.counts.attemptsByToken.values()),
    transactionMs: latencyOf(counter.counts.committedMs),
    drainFactor: wallMs / (options.runs * latencyOf(counter.counts.committedMs).p50),
    balance: { opening, expected, final, exact: final === expected },
    spend: {
      expected: charged * cost,
      counted: spend.month,
      members: [...members.values()].reduce((sum, member) => sum + member.month, 0),
    },
    lanes: { filled: lanes.length, holding: lanes.reduce((sum, lane) => sum + lane.credits, 0) },
    chargeEvents,
  } satisfies HotResult;
}

/**
 * 200 runs at once are 200 Lambda instances, each with its own connections; in this one process
 * they share one SDK connection pool (50 sockets), and the SDK counts a call's wait for a free
 * socket against lib/db/client.ts's 1 s connection timeout, so queued calls would fail with a
 * TimeoutError no instance would see. For this run the connection timeout is the per-call
 * budget's (DYNAMODB_CALL_TIMEOUT_MS).
 */
async function noTimeoutWaitingForASocket(): Promise<void> {
  await db().send(new GetCommand({ TableName: tableName(), Key: orgKey('warm-up') }));
  const handler = (db().config as unknown as { requestHandler: { config?: { connectionTimeout?: number } } }).requestHandler;
  if (!handler.config || handler.config.connectionTimeout === undefined)
    throw new Error('the SDK request handler has changed: see noTimeoutWaitingForASocket');
  handler.config.connectionTimeout = config().dynamodbCallTimeoutMs;
}

async function countChargeEvents(orgId: string): Promise<number> {
  const events = billingEventsPrefix(orgId);
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :events)',
        FilterExpression: '#type = :charged',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':pk': events.PK, ':events': events.skPrefix, ':charged': 'social_operation.charged' },
        ConsistentRead: true,
        Select: 'COUNT',
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}
