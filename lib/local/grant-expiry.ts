/**
 * `npm start`'s stand-in for the deployed schedule (infra/grant-expiry.ts): a grant expiry pass
 * every GRANT_EXPIRY_INTERVAL_SECONDS (default DEFAULTS.grantExpiryIntervalSeconds; 0 turns it off).
 */
import { expireDueGrants } from '../billing/expiry.ts';
import { DEFAULTS } from '../config.ts';
import { everyInterval } from './schedule.ts';

export function startGrantExpiry(
  intervalSeconds = Number(process.env.GRANT_EXPIRY_INTERVAL_SECONDS || DEFAULTS.grantExpiryIntervalSeconds),
  log: (line: string) => void = console.log,
  run: <T>(pass: () => Promise<T>) => Promise<T> = (pass) => pass(),
): () => void {
  return everyInterval(intervalSeconds, async () => {
    try {
      const result = await run(() => expireDueGrants());
      if (result.expired > 0 || result.retried > 0)
        log(`grant expiry: expired ${result.expired} (${result.credits} credits), retried ${result.retried}`);
    } catch (error) {
      log(`grant expiry: ${(error as Error).message}`);
    }
  });
}
