/**
 * The spending period: the UTC calendar month (spend counters are keyed by it, lib/db/keys.ts
 * spendMonth). `end` is exclusive: the instant the next month starts, when limits reset.
 */
export function monthPeriod(at: Date): { start: string; end: string } {
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth();
  return { start: new Date(Date.UTC(year, month, 1)).toISOString(), end: new Date(Date.UTC(year, month + 1, 1)).toISOString() };
}
