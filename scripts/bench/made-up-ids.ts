/**
 * The values a request makes up (an event id, a transaction token, an idempotency claim's
 * owner): the floor must make them up afresh, as the route's next request would, or its
 * replayed writes would collide with the route's (a second put of the same event, a reused
 * ClientRequestToken answered from DynamoDB's idempotency cache without doing the work).
 *
 * Every id the service makes up comes from node:crypto's randomUUID; while the bench runs,
 * it is wrapped so that each id is filed under the recorded request that asked for it.
 */

/**
 * The values a request makes up (an event id, a transaction token, an idempotency claim's
 * owner): the floor must make them up afresh, as the route's next request would, or its
 * replayed writes would collide with the route's (a second put of the same event, a reused
 * ClientRequestToken answered from DynamoDB's idempotency cache without doing the work).
 *
 * Every id the service makes up comes from node:crypto's randomUUID; while the bench runs,
 * it is wrapped so that each id is filed under the recorded request that asked for it.
 */
import crypto, { randomUUID } from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { type CommandLog, currentCommandLog } from '../../lib/db/round-trips.ts';

const made = new WeakMap<CommandLog, string[]>();

/** Starts filing made-up ids; returns the function that stops it. */
export function trackMadeUpIds(): () => void {
  const original = crypto.randomUUID;
  crypto.randomUUID = (options?: crypto.RandomUUIDOptions) => {
    const id = original(options);
    const log = currentCommandLog();
    if (log) {
      const ids = made.get(log) ?? [];
      ids.push(id);
      made.set(log, ids);
    }
    return id;
  };
  syncBuiltinESMExports();
  return () => {
    crypto.randomUUID = original;
    syncBuiltinESMExports();
  };
}

/** A fresh id for each id the request made up, also in the compact form without dashes (an API key's id). */
export const freshIdsFor = (log: CommandLog): Record<string, string> =>
  Object.fromEntries(
    (made.get(log) ?? []).flatMap((id) => {
      const fresh = randomUUID();
      return [
        [id, fresh],
        [id.replaceAll('-', ''), fresh.replaceAll('-', '')],
      ];
    }),
  );
