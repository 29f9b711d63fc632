/**
 * Runs held in flight: every charge transaction (a TransactWriteItems that adds to a spend
 * counter) waits before it is sent until released, so that a test can change what the runs read
 * (a limit, a role, a revocation) between their reads and their charges, deterministically.
 * Nothing of the service is mocked: a middleware on its own DynamoDB client delays the command.
 */
import { expect } from 'vitest';
import { db } from '../../lib/db/client.ts';

export function holdCharges() {
  const name = `hold-${Math.random()}`;
  let open: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    open = resolve;
  });
  let held = 0;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand' && JSON.stringify(args.input).includes('"SPEND#')) {
        held += 1;
        await released;
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return {
    /** How many charges are waiting. */
    held: () => held,
    /** Lets every charge go (idempotent); later ones are not held. */
    release: () => {
      db().middlewareStack.remove(name);
      open();
    },
  };
}

/** Waits (25 ms steps, 15 s at most) until `condition` holds. */
export async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 600 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(condition()).toBe(true);
}

/**
 * Starts `count` runs with `start`, waits until all of them hold their charge, applies `change`,
 * then lets the charges go: the runs' answers.
 */
export async function inFlight<T>(count: number, start: () => Promise<T>, change: () => Promise<unknown>): Promise<T[]> {
  const hold = holdCharges();
  try {
    const runs = Promise.all(Array.from({ length: count }, start));
    await until(() => hold.held() === count);
    await change();
    hold.release();
    return await runs;
  } finally {
    hold.release();
  }
}
