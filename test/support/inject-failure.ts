/**
 * Fault injection at the SDK: middlewares on the service's DynamoDB client make commands fail
 * as DynamoDB and the SDK would make them fail. Nothing of the service is mocked: the faults are
 * errors (and silences) the real client can produce.
 *
 * - `failCommands`: every command a predicate selects throws, by name (the simple tool).
 * - `stepFaults`: the fault-injection matrix's tool (test/fault-injection.test.ts). Within
 *   `run(plan, work)`, the commands that `work` sends are counted (1, 2, … in the order they are
 *   sent, concurrent requests each counting their own) and the one at `plan.step` fails as
 *   `plan.kind` says (FAULTS).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  InternalServerError,
  ProvisionedThroughputExceededException,
  ThrottlingException,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { config } from '../../lib/config.ts';
import { db } from '../../lib/db/client.ts';

/**
 * Makes every command that `matches` selects throw an SDK-like error (by name, as the service
 * matches errors) instead of being sent, or, with `applied`, after it was sent and applied (the
 * answer is lost). Returns the function that removes it.
 */
export function failCommands(
  matches: (commandName: string) => boolean,
  errorName = 'InternalServerError',
  options: { applied?: boolean } = {},
): () => void {
  const name = `fail-${Math.random()}`;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      if (!matches(String(context.commandName))) return next(args);
      if (options.applied) await next(args);
      throw Object.assign(new Error('injected'), { name: errorName });
    },
    { step: 'initialize', name },
  );
  return () => db().middlewareStack.remove(name);
}

/**
 * The faults, and where each is injected. "Final" faults are thrown where the service receives
 * the SDK's answer (inside the call budget of lib/db/client.ts, outside the SDK's retries): what
 * the service sees once the SDK has spent its 3 attempts (`maxAttempts`), or for errors the SDK
 * never retries. Injecting them below the retry middleware instead would have the SDK retry a
 * one-off fault away, which `lost-retried` does on purpose.
 */
export const FAULTS = {
  /** ThrottlingException, as thrown after the SDK's 3 attempts (final). */
  throttling: { writesOnly: false },
  /** ProvisionedThroughputExceededException after the SDK's attempts (final). */
  throughput: { writesOnly: false },
  /** InternalServerError (HTTP 500 from DynamoDB) after the SDK's attempts (final): nothing written. */
  internal: { writesOnly: false },
  /** The SDK's own TimeoutError (a socket that never connected, 3 times): nothing written (final). */
  'sdk-timeout': { writesOnly: false },
  /** The command is never answered (nor applied): the call budget must cut it. */
  hang: { writesOnly: false },
  /**
   * A write lost to a concurrent transaction: TransactionCanceledException with a
   * `TransactionConflict` reason for a TransactWriteItems (the SDK does not retry it; the service
   * may), TransactionConflictException for a single-item write. Final; nothing written.
   */
  conflict: { writesOnly: true },
  /**
   * The write is applied, then the answer is lost: DynamoDB's InternalServerError ("the request
   * may or may not have succeeded"), as the service receives it (final).
   */
  lost: { writesOnly: true },
  /** The write is applied, but its answer comes after the call budget: the service gives up first. */
  slow: { writesOnly: true },
  /**
   * The write is applied and the connection then resets (ECONNRESET) on its first attempt, below
   * the SDK's retry middleware: the SDK sends it again, for real, and the service gets the
   * second attempt's answer (a conditional write may now fail its condition).
   */
  'lost-retried': { writesOnly: true },
} as const;

export type FaultKind = keyof typeof FAULTS;
export const FAULT_KINDS = Object.keys(FAULTS) as FaultKind[];

const READS = new Set(['GetItemCommand', 'QueryCommand', 'BatchGetItemCommand', 'ScanCommand']);
export const isWrite = (command: string): boolean => !READS.has(command);

/** Whether a fault kind applies to a command (writes only for what can be applied and lost). */
export const faultApplies = (kind: FaultKind, command: string): boolean => !FAULTS[kind].writesOnly || isWrite(command);

/** The call budget of the faulted command for `hang` and `slow` (the others keep the generous default). */
export const FAULT_BUDGET_MS = 300;

export interface FaultPlan {
  /** 1-based: the command of the request to fail, in the order the request sends them. */
  step: number;
  kind: FaultKind;
}

/** What one request sent, and what the fault did. */
export interface FaultLog {
  commands: string[];
  /** The command the fault hit (undefined: the request never sent `plan.step` commands). */
  faulted: string | undefined;
  /** Writes still on their way when the service gave up on them (`slow`): awaited before checking. */
  inFlight: Promise<unknown>[];
  /** Attempts the SDK made of the faulted command, counted below its retries (`lost-retried` only). */
  attempts: number;
}

interface Scope {
  plan: FaultPlan | undefined;
  log: FaultLog;
}

type FaultedContext = { fault?: FaultKind; faultAttempts?: number };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const metadata = { httpStatusCode: 400, attempts: 3, totalRetryDelay: 0 };

/** The error the service receives for a final fault on `command` (`input`: the document-level input). */
function finalError(kind: FaultKind, command: string, input: Record<string, unknown>): Error {
  const message = `injected ${kind}`;
  switch (kind) {
    case 'throttling':
      return new ThrottlingException({ message, $metadata: metadata });
    case 'throughput':
      return new ProvisionedThroughputExceededException({ message, $metadata: metadata });
    case 'internal':
    case 'lost':
      return new InternalServerError({ message, $metadata: { ...metadata, httpStatusCode: 500 } });
    case 'sdk-timeout':
      // As @smithy/node-http-handler throws it when a socket does not connect in time.
      return Object.assign(new Error(`Socket timed out without establishing a connection (${message})`), { name: 'TimeoutError' });
    case 'conflict': {
      if (command !== 'TransactWriteItemsCommand') {
        return new TransactionConflictException({ message: 'Transaction is ongoing for the item', $metadata: metadata });
      }
      const items = (input.TransactItems as unknown[] | undefined) ?? [];
      return new TransactionCanceledException({
        message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]',
        $metadata: metadata,
        CancellationReasons: items.map((_, index) =>
          index === 0 ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' } : { Code: 'None' },
        ),
      });
    }
    default:
      throw new Error(`${kind} is not a final fault`);
  }
}

/**
 * Installs the step injector on the service's client. Three middlewares: one outermost that
 * counts the request's commands and marks the one to fail (giving `hang` and `slow` the short
 * budget FAULT_BUDGET_MS through the config the call budget reads); one innermost in the
 * initialize step (inside the call budget, outside the SDK's retries) for the final faults; one
 * per attempt, below the retry middleware, for `lost-retried`.
 */
export function stepFaults() {
  const scope = new AsyncLocalStorage<Scope>();
  const budget = new AsyncLocalStorage<number>();
  const settings = config();
  const generous = settings.dynamodbCallTimeoutMs;
  Object.defineProperty(settings, 'dynamodbCallTimeoutMs', { configurable: true, get: () => budget.getStore() ?? generous });
  const names = ['fault-step', 'fault-final', 'fault-attempt'].map((name) => `${name}-${Math.random()}`);
  const stack = db().middlewareStack;

  stack.add(
    (next, context) => async (args) => {
      const current = scope.getStore();
      if (!current) return next(args);
      const command = String(context.commandName);
      const step = current.log.commands.push(command);
      if (current.plan?.step !== step) return next(args);
      current.log.faulted = command;
      (context as FaultedContext).fault = current.plan.kind;
      return current.plan.kind === 'hang' || current.plan.kind === 'slow' ? budget.run(FAULT_BUDGET_MS, () => next(args)) : next(args);
    },
    { step: 'initialize', priority: 'high', name: names[0]! },
  );

  stack.add(
    (next, context) => async (args) => {
      const kind = (context as FaultedContext).fault;
      if (kind === undefined || kind === 'lost-retried') return next(args);
      const input = args.input as Record<string, unknown>;
      if (kind === 'hang') return new Promise<never>(() => {});
      if (kind === 'slow') {
        const applied = sleep(FAULT_BUDGET_MS + 100).then(() => next(args));
        scope.getStore()?.log.inFlight.push(applied.catch(() => undefined));
        return applied;
      }
      if (kind === 'lost') await next(args);
      throw finalError(kind, String(context.commandName), input);
    },
    { step: 'initialize', priority: 'low', name: names[1]! },
  );

  stack.add(
    (next, context) => async (args) => {
      const faulted = context as FaultedContext;
      if (faulted.fault !== 'lost-retried') return next(args);
      faulted.faultAttempts = (faulted.faultAttempts ?? 0) + 1;
      const log = scope.getStore()?.log;
      if (log) log.attempts = faulted.faultAttempts;
      const answer = await next(args);
      if (faulted.faultAttempts > 1) return answer;
      throw Object.assign(new Error('socket hang up (injected after the write was applied)'), { code: 'ECONNRESET' });
    },
    { step: 'finalizeRequest', priority: 'low', name: names[2]! },
  );

  return {
    /** Runs `work` (one request) with `plan` (or none: a clean run that only counts). */
    async run<T>(plan: FaultPlan | undefined, work: () => Promise<T>): Promise<{ result: T; log: FaultLog }> {
      const log: FaultLog = { commands: [], faulted: undefined, inFlight: [], attempts: 0 };
      const result = await scope.run({ plan, log }, work);
      return { result, log };
    },
    remove() {
      for (const name of names) stack.remove(name);
      Object.defineProperty(settings, 'dynamodbCallTimeoutMs', { configurable: true, writable: true, value: generous });
    },
  };
}
