/**
 * `npm start`'s stand-in for the deployed schedule (infra/sweeper.ts): the charge sweeper every
 * SWEEP_INTERVAL_SECONDS (default DEFAULTS.sweepIntervalSeconds; 0 turns it off), and once at
 * start, so that runs lost when a previous server on the same DATA_DIR was killed are refunded
 * as soon as they are due.
 */
import { returnIdleLanes } from '../billing/lanes.ts';
import { sweepPendingRuns } from '../billing/sweeper.ts';
import { DEFAULTS } from '../config.ts';
import { everyInterval } from './schedule.ts';

export function startChargeSweeper(
  intervalSeconds = Number(process.env.SWEEP_INTERVAL_SECONDS || DEFAULTS.sweepIntervalSeconds),
  log: (line: string) => void = console.log,
  /** How each sweep runs (npm start: as an invocation of its own, for its log and metric context). */
  run: <T>(sweep: () => Promise<T>) => Promise<T> = (sweep) => sweep(),
): () => void {
  return everyInterval(intervalSeconds, async () => {
    try {
      const result = await run(() => sweepPendingRuns());
      if (result.refunded > 0 || result.failed > 0) log(`charge sweeper: refunded ${result.refunded}, failed ${result.failed}`);
      const lanes = await run(() => returnIdleLanes());
      if (lanes.lanes > 0) log(`charge sweeper: returned ${lanes.credits} credits from ${lanes.lanes} idle lanes`);
    } catch (error) {
      log(`charge sweeper: ${(error as Error).message}`);
    }
  });
}
