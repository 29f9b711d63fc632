/**
 * Counting DynamoDB round trips, with an SDK middleware: the tests that pin a route's round
 * trips and the benchmark (scripts/bench/) both use it. Never installed by the service itself.
 *
 * A command's wave is 1 + the highest wave among the commands of the same request that had
 * completed when it was sent (1 when none had): commands sent together share a wave, a command
 * sent on what an earlier one returned is one wave later. A request's sequential round trips
 * are its highest wave, whatever else was still in flight (the rate-limit counter, say). The
 * middleware sits innermost in the initialize step, after lib/db/client.ts's write barrier, so a
 * write that waits for the rate-limit verdict is counted when it is really sent.
 */

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { asyncScope } from '../async-scope.ts';

/** One command as sent: its SDK name (`GetItemCommand`), its document-level input, its wave (1-based). */
export interface SentCommand {
  name: string;
  input: Record<string, unknown>;
  wave: number;
  /** Indexes (in `sent`) of the commands of the request that had completed when this one was sent. */
  after: number[];
}

/** What one request (or one counting session) sent. */
export interface CommandLog {
  sent: SentCommand[];
  /** Sequential round trips: the highest wave. */
  sequential: number;
  /** Indexes of the commands that have completed. */
  completed: number[];
}

const newLog = (): CommandLog => ({ sent: [], sequential: 0, completed: [] });

function install(client: DynamoDBDocumentClient, logOf: () => CommandLog | undefined): () => void {
  const name = `round-trip-counter-${Math.random()}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const log = logOf();
      if (!log) return next(args);
      const after = [...log.completed];
      const wave = 1 + Math.max(0, ...after.map((index) => log.sent[index]?.wave ?? 0));
      const index = log.sent.push({ name: String(context.commandName), input: args.input as Record<string, unknown>, wave, after }) - 1;
      log.sequential = Math.max(log.sequential, wave);
      try {
        return await next(args);
      } finally {
        log.completed.push(index);
      }
    },
    { step: 'initialize', priority: 'low', name },
  );
  return () => client.middlewareStack.remove(name);
}

/**
 * Counts every command sent through `client` until `stop()`, one request at a time:
 * `log.commands` is their names in order, `log.sequential` the waves.
 */
export function countRoundTrips(client: DynamoDBDocumentClient) {
  let current = newLog();
  const stop = install(client, () => current);
  const log = {
    get commands() {
      return current.sent.map((command) => command.name);
    },
    get sequential() {
      return current.sequential;
    },
  };
  return {
    log,
    reset() {
      current = newLog();
    },
    stop,
  };
}

const scope = asyncScope<CommandLog>('round-trips');

/** The log of the recorded request this code runs in, if any (see recordRequests). */
export const currentCommandLog = (): CommandLog | undefined => scope.getStore();

/**
 * Records, per request, what concurrent requests send through `client`: `record(work)` runs
 * `work` with its own log (followed across awaits), so waves are counted per request even
 * with many in flight. Commands sent outside `record` are not recorded.
 */
export function recordRequests(client: DynamoDBDocumentClient) {
  const stop = install(client, currentCommandLog);
  return {
    async record<T>(work: () => Promise<T>): Promise<{ result: T; log: CommandLog }> {
      const log = newLog();
      const result = await scope.run(log, work);
      return { result, log };
    },
    stop,
  };
}
