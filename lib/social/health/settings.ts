/**
 * The breaker's and the health window's settings (docs/social-operations.md, "Health and
 * breakers"), from the environment once per cold start. Tests and a trial stack shorten them to
 * see a breaker open and close in seconds.
 */
import { integer } from '../../config.ts';

export interface HealthSettings {
  /** Width of one health bucket (HEALTH_BUCKET_SECONDS, default 60): the resolution of every window. */
  bucketSeconds: number;
  /** The window a breaker trips on (HEALTH_BREAKER_WINDOW_SECONDS, default 120). */
  windowSeconds: number;
  /** Failures within the window needed to trip (HEALTH_BREAKER_MIN_FAILURES, default 5) … */
  minFailures: number;
  /** … when they are at least this percentage of the window's calls (HEALTH_BREAKER_FAILURE_PERCENT, default 50). */
  failurePercent: number;
  /** How long an open breaker skips its provider before runs probe it again (HEALTH_BREAKER_OPEN_SECONDS, default 30). */
  openSeconds: number;
  /** How often an instance reads the deployment's breakers (HEALTH_REFRESH_SECONDS, default 20; 0: before every check). */
  refreshSeconds: number;
}

let cached: HealthSettings | undefined;

export function healthSettings(): HealthSettings {
  cached ??= {
    bucketSeconds: integer('HEALTH_BUCKET_SECONDS', 60, 1),
    windowSeconds: integer('HEALTH_BREAKER_WINDOW_SECONDS', 120, 1),
    minFailures: integer('HEALTH_BREAKER_MIN_FAILURES', 5, 1),
    failurePercent: integer('HEALTH_BREAKER_FAILURE_PERCENT', 50, 1),
    openSeconds: integer('HEALTH_BREAKER_OPEN_SECONDS', 30, 1),
    refreshSeconds: integer('HEALTH_REFRESH_SECONDS', 20, 0),
  };
  return cached;
}

/** For tests: read the settings again. */
export const resetHealthSettings = (): void => {
  cached = undefined;
};
