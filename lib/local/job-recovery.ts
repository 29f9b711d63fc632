/**
 * `npm start`'s stand-in for the deployed schedule of the recovery of stalled jobs (infra/jobs.ts):
 * `recoverStalledJobs` every JOBS_RECOVERY_INTERVAL_SECONDS (default
 * DEFAULTS.jobRecoveryIntervalSeconds; 0 turns it off), and once at start. At start, `npm start`
 * also queues again every active job's unfinished items (`requeueActiveJobs`: its embedded queue
 * died with the previous server); this finds, later, the jobs whose creation was cut short while
 * the server runs.
 */
import { DEFAULTS } from '../config.ts';
import { type RecoveryResult, recoverStalledJobs } from '../jobs/recovery.ts';
import { everyInterval } from './schedule.ts';

export function startJobRecovery(
  intervalSeconds = Number(process.env.JOBS_RECOVERY_INTERVAL_SECONDS || DEFAULTS.jobRecoveryIntervalSeconds),
  log: (line: string) => void = console.log,
  /** How each run goes (npm start: as an invocation of its own, for its log and metric context). */
  run: <T>(recovery: () => Promise<T>) => Promise<T> = (recovery) => recovery(),
): () => void {
  return everyInterval(intervalSeconds, async () => {
    try {
      const result: RecoveryResult = await run(() => recoverStalledJobs());
      if (result.jobs > 0 || result.cancelled > 0)
        log(`job recovery: ${result.jobs} stalled jobs queued again (${result.messages} messages), ${result.cancelled} cancelled`);
    } catch (error) {
      log(`job recovery: ${(error as Error).message}`);
    }
  });
}
