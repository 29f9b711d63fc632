import { spendMonth } from '../db/keys.ts';

/**
 * The UTC calendar month spending limits count in: its key ("2026-11", as spend counters are
 * keyed, lib/db/keys.ts spendMonth) and its bounds (ISO 8601). `end` is exclusive: the instant
 * the next month starts, when limits reset.
 */
export interface SpendPeriod {
  month: string;
  start: string;
  end: string;
}

export function spendPeriod(at: Date): SpendPeriod {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { month: spendMonth(at), start: start.toISOString(), end: end.toISOString() };
}

/** The month's bounds alone, as the balance and a 402's `resets_at` show them. */
export function monthPeriod(at: Date): { start: string; end: string } {
  const { start, end } = spendPeriod(at);
  return { start, end };
}

/** The UTC day's bounds: when a daily limit reset (`start`) and resets (`end`, the next UTC midnight). */
export function dayPeriod(at: Date): { start: string; end: string } {
  const start = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  return { start: new Date(start).toISOString(), end: new Date(start + 86_400_000).toISOString() };
}
