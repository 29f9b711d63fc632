import { randomUUID } from 'node:crypto';
import { type AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  type DeleteCommandInput,
  DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { asyncScope } from '../async-scope.ts';
import { config } from '../config.ts';
import { traced } from '../observability/tracer.ts';
import { callSlots } from './call-slots.ts';
import { retryConflicts } from './conflict-retry.ts';
import { AUDIT_PARTITION_PREFIX } from './keys.ts';

let client: DynamoDBDocumentClient | undefined;

/**
 * How long a call may wait for its connection. To DynamoDB's regional endpoint, 1 s: longer is a
 * network fault. To a local endpoint (DynamoDB Local, `npm start` and the tests), as long as the
 * call may take: there one process runs many invocations, and on a loaded machine its event loop
 * can be late to see a connection made (TimeoutErrors that would each cost the shared retry
 * quota 10 tokens, and answer 500 where no Lambda would).
 */
const connectionTimeoutMs = (endpoint: string | undefined): number => (endpoint ? config().dynamodbCallTimeoutMs : 1_000);

/**
 * Calls in flight at once, at most: together no more than the client's pool has sockets. The
 * SDK's connection timeout also runs while a call waits in the pool, so under load a queued call
 * failed after 1 s as if the database did not connect: on the local stack, where every function
 * shares this client, 893 of 1000 runs answered 500 at 50 runs/s. Calls beyond a lane's slots
 * wait here instead, in order, within their own budget. Two lanes: the calls of HTTP requests,
 * and the rest (the stream function, the queue workers), so that, as deployed where each function
 * has its own connections, the stream's consumers never wait behind the API's calls in this
 * process. The requests' lane is narrow so that DynamoDB Local's own queue (it serves one call at
 * a time) stays short for the others: 16 keep its two cores busy (alerts at 50 runs/s asked, back
 * to back: 40 request slots, p95 29 s from charge to receiver; 16, 8.5 s; docs/performance.md).
 * The rest get the other sockets: a job's items may hold 20 charges at once. Within the
 * requests' lane the earliest deadline goes first: a run under way finishes before the runs that
 * came after it start, instead of each of its three round trips waiting behind all of them. A
 * Lambda instance never comes near either.
 */
const MAX_SOCKETS = 50;
const REQUEST_SLOTS = 16;
const requestSlots = callSlots(REQUEST_SLOTS);
const backgroundSlots = callSlots(MAX_SOCKETS - REQUEST_SLOTS);

/** The SDK's name for its logging middleware (`@aws-sdk/core`), which the client goes without. */
export const SDK_LOGGER_MIDDLEWARE = 'loggerMiddleware';

/**
 * The service's document client over `base` (also the bench's floor, so that the floor is what
 * the service could be): its marshalling, and no SDK logger middleware. That middleware walks
 * every call's input and output through the schema's sensitive-data filter for its logger, even
 * the no-op one these clients have: a Query of 50 items cost 2.46 ms of Node CPU with it and 1.98
 * without (docs/performance.md).
 */
export function documentClientOver(base: DynamoDBClient): DynamoDBDocumentClient {
  base.middlewareStack.remove(SDK_LOGGER_MIDDLEWARE);
  return DynamoDBDocumentClient.from(base, { marshallOptions: { removeUndefinedValues: true } });
}

/** One document client per cold start (connection reuse); created on first use. */
export function db(): DynamoDBDocumentClient {
  if (!client) {
    const { region, dynamodbEndpoint } = config();
    // Each DynamoDB call is an X-Ray subsegment when the Tracer is bundled (lib/observability/tracer.ts).
    const base = traced(
      new DynamoDBClient({
        region,
        ...(dynamodbEndpoint ? { endpoint: dynamodbEndpoint } : {}),
        // A request path must fail fast rather than hang a Lambda on a stuck socket: sockets
        // are bounded here, and each call as a whole by the middleware below.
        maxAttempts: 3,
        requestHandler: {
          connectionTimeout: connectionTimeoutMs(dynamodbEndpoint),
          requestTimeout: config().dynamodbCallTimeoutMs,
          httpAgent: { maxSockets: MAX_SOCKETS },
          httpsAgent: { maxSockets: MAX_SOCKETS },
        },
      }),
    );
    client = documentClientOver(base);
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = String(context.commandName);
        const scope = requestScope.getStore();
        if (scope?.barrier && !READ_COMMANDS.has(command)) await scope.barrier();
        const budgetMs = Math.min(config().dynamodbCallTimeoutMs, (scope?.deadlineMs ?? Number.POSITIVE_INFINITY) - Date.now());
        (context as BudgetedContext).budget = { budgetMs, giveUpAtMs: Date.now() + budgetMs };
        return withinBudget(next(args), budgetMs, command);
      },
      { step: 'initialize', name: 'requestScope' },
    );
    // A transaction cancelled by its audit event's condition: AuditWriteFailed, whatever else it changed.
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const indexes = context.commandName === 'TransactWriteItemsCommand' ? auditItemIndexes(args.input as AuditedInput) : [];
        if (indexes.length === 0) return next(args);
        try {
          return await next(args);
        } catch (error) {
          const reasons = cancellationReasons(error);
          if (indexes.some((index) => reasons?.[index]?.Code === 'ConditionalCheckFailed')) throw new AuditWriteFailed();
          throw error;
        }
      },
      { step: 'initialize', name: 'auditWrite' },
    );
    // Each attempt, signed and about to be sent, takes a slot (a retry's backoff holds none). The
    // slot is held until the attempt is answered or the call given up on; an attempt whose budget
    // ran out while it waited for one is not sent at all. A request's attempts go in the order of
    // its deadline, so the later round trips of a request under way pass the first calls of
    // requests that came after it.
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = String(context.commandName);
        const scope = requestScope.getStore();
        const { budgetMs, giveUpAtMs } = (context as BudgetedContext).budget ?? {
          budgetMs: Number.POSITIVE_INFINITY,
          giveUpAtMs: Number.POSITIVE_INFINITY,
        };
        const slots = scope?.deadlineMs === undefined ? backgroundSlots : requestSlots;
        const sent = () => {
          const leftMs = giveUpAtMs - Date.now();
          return leftMs > 0 ? withinBudget(next(args), leftMs, command) : Promise.reject(new StorageTimeoutError(command, budgetMs));
        };
        return slots.run(sent, scope?.deadlineMs);
      },
      { step: 'finalizeRequest', priority: 'low', name: 'callSlot' },
    );
  }
  return client;
}

/**
 * An audit event that could not be written (its item's condition failed: an item stood at its
 * key): its change is cancelled with it, and the request answers a plain 500. Never read as the
 * change's own refusal (a 404, a 409), whatever the change's code makes of its cancellations.
 */
export class AuditWriteFailed extends Error {
  constructor() {
    super('the audit event of this change could not be written: nothing was changed');
    this.name = 'AuditWriteFailed';
  }
}

type AuditedInput = { TransactItems?: unknown[] } | undefined;

/**
 * The indexes of a transaction's audit events (lib/db/audit-events.ts; two when a change of two
 * objects writes one each, an acceptance's): translated here, at the storage boundary, so that no
 * change's own reading of its cancellations can take an event's failure for a refusal of its own.
 */
function auditItemIndexes(input: AuditedInput): number[] {
  return (input?.TransactItems ?? []).flatMap((item, index) => {
    const pk = (item as { Put?: { Item?: { PK?: unknown } } }).Put?.Item?.PK;
    const text = typeof pk === 'string' ? pk : (pk as { S?: string } | undefined)?.S;
    return text?.startsWith(AUDIT_PARTITION_PREFIX) ? [index] : [];
  });
}

/** A call's budget, set when it starts (the requestScope middleware) and read by each of its attempts. */
interface BudgetedContext {
  budget?: { budgetMs: number; giveUpAtMs: number };
}

const READ_COMMANDS = new Set(['GetItemCommand', 'QueryCommand', 'BatchGetItemCommand', 'ScanCommand']);

/** What one request may spend on the table: until its deadline, and writes only past its barrier. */
interface RequestScope {
  /** Epoch ms after which no call may still be waited for (the function's own deadline, less a margin). */
  deadlineMs?: number;
  barrier?: () => Promise<void>;
}

const requestScope = asyncScope<RequestScope>('db-request');

/** The epoch ms past which the current request waits for no DynamoDB call (Infinity outside a request). */
export const requestDeadlineMs = (): number => requestScope.getStore()?.deadlineMs ?? Number.POSITIVE_INFINITY;

/** Runs `work` so that no DynamoDB call it makes is waited for past `deadlineMs`. */
export const withDeadline = <T>(deadlineMs: number, work: () => Promise<T>): Promise<T> =>
  requestScope.run({ ...requestScope.getStore(), deadlineMs }, work);

/**
 * Runs `work` so that every write it sends to the table first awaits `barrier`, while its
 * reads go out at once. The HTTP chain passes the rate-limit check as the barrier: a request
 * over its limit can read (alongside the counter, in the same round trip) but never write, and
 * no handler can forget to ask.
 */
export const withWriteBarrier = <T>(barrier: () => Promise<void>, work: () => Promise<T>): Promise<T> =>
  requestScope.run({ ...requestScope.getStore(), barrier }, work);

/** A DynamoDB call that was not answered within its budget (the database hangs or the deadline is near). */
export class StorageTimeoutError extends Error {
  constructor(command: string, budgetMs: number) {
    super(`DynamoDB did not answer ${command} within ${Math.max(0, Math.round(budgetMs))} ms`);
    this.name = 'StorageTimeoutError';
  }
}

/**
 * Stops waiting for a call after `budgetMs`. The SDK's own socket timeout ends the request
 * itself; this bounds the whole call, retries included, so that a hung database costs a
 * request its budget and not the function's whole timeout.
 */
function withinBudget<T>(call: Promise<T>, budgetMs: number, command: string): Promise<T> {
  if (!Number.isFinite(budgetMs)) return call;
  if (budgetMs <= 0) {
    call.catch(() => undefined);
    return Promise.reject(new StorageTimeoutError(command, budgetMs));
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StorageTimeoutError(command, budgetMs)), budgetMs);
  });
  call.catch(() => undefined);
  return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
}

export const tableName = (): string => config().tableName;

/** Every item a Query matches, following its pages (for partitions read whole: a user's memberships, a month's counters). */
export async function queryAll(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new QueryCommand({ ...input, TableName: tableName(), ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/**
 * Sends `send(pending)` again with what DynamoDB left unprocessed (it throttled part of a batch),
 * after a backoff (`pauseMs(attempt)`), `attempts` times in all; then throws, naming what is left (`what`).
 */
async function untilProcessed<T>(
  first: T[],
  send: (pending: T[]) => Promise<T[]>,
  attempts: number,
  pauseMs: (attempt: number) => number,
  what: string,
): Promise<void> {
  let pending = first;
  for (let attempt = 0; pending.length > 0; attempt += 1) {
    if (attempt >= attempts) throw new Error(`DynamoDB left ${pending.length} ${what} after ${attempts} attempts`);
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs(attempt)));
    pending = await send(pending);
  }
}

/**
 * The items of at most 100 keys, read consistently in one BatchGetItem (plus retries, with
 * backoff, of what DynamoDB left unprocessed, 6 attempts in all); in no particular order, missing
 * items absent.
 */
export async function batchGetAll(keys: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  const table = tableName();
  const items: Record<string, unknown>[] = [];
  await untilProcessed(
    keys,
    async (pending) => {
      const result = await db().send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }));
      items.push(...(result.Responses?.[table] ?? []));
      return result.UnprocessedKeys?.[table]?.Keys ?? [];
    },
    6,
    (attempt) => 20 * 2 ** attempt,
    'items unread',
  );
  return items;
}

/** At most 25 items put in one BatchWriteItem (plus retries, with backoff, of what DynamoDB left unprocessed, 8 attempts in all). */
export async function batchWriteAll(items: Record<string, unknown>[], what: string): Promise<void> {
  const table = tableName();
  await untilProcessed(
    items.map((Item) => ({ PutRequest: { Item } })),
    async (pending) => {
      const result = await db().send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      return (result.UnprocessedItems?.[table] ?? []) as typeof pending;
    },
    8,
    (attempt) => Math.min(1000, 25 * 2 ** attempt),
    `${what} unwritten`,
  );
}

/** One item of a TransactWriteItems request (Put, Update, Delete or ConditionCheck). */
export type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/** Why one item of a cancelled transaction failed: its code, and its old item when asked for. */
export interface CancellationReason {
  Code?: string;
  Item?: Record<string, AttributeValue>;
}

/**
 * The cancellation reasons of a failed TransactWriteItems, one per item in request order, or null
 * if `error` is not a cancellation. Matched by name so that a cancellation from any copy of the
 * SDK (or an injected one in a test) is recognised.
 */
export function cancellationReasons(error: unknown): CancellationReason[] | null {
  if ((error as Error | null)?.name !== 'TransactionCanceledException') return null;
  return (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [];
}

/**
 * Errors after which a write was certainly not made: refused before it ran (throttled, invalid)
 * or cancelled (a transaction's conditions, a conflict).
 */
const NOT_WRITTEN = new Set([
  'TransactionCanceledException',
  'AuditWriteFailed',
  'ConditionalCheckFailedException',
  'TransactionConflictException',
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'ValidationException',
  'ResourceNotFoundException',
  'IdempotentParameterMismatchException',
]);

/**
 * Whether a write that failed with `error` may have been made all the same: DynamoDB's 500
 * ("the request may or may not have succeeded"), a timeout, a connection lost after sending, a
 * transaction still in progress under its token, anything unknown.
 */
export const mayHaveBeenWritten = (error: unknown): boolean => !NOT_WRITTEN.has((error as Error | null)?.name ?? '');

/** The cancellation code of each transaction item, or null if `error` is not a cancellation. */
export const cancellationCodes = (error: unknown): (string | undefined)[] | null =>
  cancellationReasons(error)?.map((reason) => reason.Code) ?? null;

/**
 * Sends a write, again while it loses to a concurrent transaction (`isConflict`), with the
 * policy of lib/db/conflict-retry.ts (capped full-jitter backoff): no attempt starts after
 * `retryUntilMs` or the request's deadline.
 */
const retryingConflicts = <T>(send: () => Promise<T>, isConflict: (error: unknown) => boolean, retryUntilMs: number): Promise<T> =>
  retryConflicts(send, isConflict, Math.min(retryUntilMs, requestDeadlineMs()));

const lostToTransaction = (error: unknown): boolean =>
  cancellationReasons(error)?.some((reason) => reason.Code === 'TransactionConflict') ?? false;

/**
 * Runs a transaction, retrying when it loses to a concurrent one (retryingConflicts).
 * `onCancelled` turns the cancellation reasons into the error to throw at once (a refusal), or
 * null; `onConflict` is told of each conflict before the retry, and may throw instead.
 */
export async function transact(
  items: TransactItem[],
  onCancelled: (reasons: CancellationReason[]) => Error | null,
  retryUntilMs = Number.POSITIVE_INFINITY,
  onConflict?: (reasons: CancellationReason[]) => void,
): Promise<void> {
  // One token for all attempts: an SDK-level resend of a committed transaction is a no-op.
  const token = randomUUID();
  await retryingConflicts(
    async () => {
      try {
        await db().send(new TransactWriteCommand({ TransactItems: items, ClientRequestToken: token }));
      } catch (error) {
        const reasons = cancellationReasons(error);
        throw (reasons && onCancelled(reasons)) ?? error;
      }
    },
    // `onConflict` sees which items were held by another transaction, and may throw to stop waiting for them.
    (error) => {
      const lost = lostToTransaction(error);
      if (lost && onConflict) onConflict(cancellationReasons(error) ?? []);
      return lost;
    },
    retryUntilMs,
  );
}

/** A single write that met a transaction holding its item: DynamoDB refused it unwritten, and it may be sent again. */
const heldByTransaction = (error: unknown): boolean => (error as Error | null)?.name === 'TransactionConflictException';

/**
 * Deletes one item, retrying while a transaction holds it (TransactionConflictException, which
 * a single-item write gets where a transaction would be cancelled; the SDK does not retry it).
 */
export const deleteItem = (input: DeleteCommandInput): Promise<unknown> =>
  retryingConflicts(() => db().send(new DeleteCommand(input)), heldByTransaction, Number.POSITIVE_INFINITY);

/**
 * One conditional UpdateItem, sent again while a transaction holds its item: the attributes it
 * returned (`{}` when it asked for none), or null when its condition refused it (nothing written).
 */
export async function updateIf(input: UpdateCommandInput): Promise<Record<string, unknown> | null> {
  try {
    const { Attributes } = await retryingConflicts(() => db().send(new UpdateCommand(input)), heldByTransaction, Number.POSITIVE_INFINITY);
    return Attributes ?? {};
  } catch (error) {
    if ((error as Error | null)?.name === 'ConditionalCheckFailedException') return null;
    throw error;
  }
}

/**
 * What item `index` of a cancelled transaction found when its condition failed: the stored item
 * (when it asked for it with ReturnValuesOnConditionCheckFailure), null if there was none, and
 * `undefined` when its condition held.
 */
export function conditionFailedOn(reasons: CancellationReason[], index: number): Record<string, unknown> | null | undefined {
  const reason = reasons[index];
  if (reason?.Code !== 'ConditionalCheckFailed') return undefined;
  return reason.Item ? unmarshall(reason.Item) : null;
}

/** Whether item `index` of a cancelled transaction failed its condition. */
export const conditionFailed = (reasons: CancellationReason[], index: number): boolean => reasons[index]?.Code === 'ConditionalCheckFailed';
