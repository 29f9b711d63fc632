import { spendMonth } from '../db/keys.ts';

/** The UTC calendar month spending limits count in: its key ("2026-11") and its bounds (ISO 8601). */
export interface SpendPeriod {
  month: string;
  start: string;
  /** Exclusive: the start of the next month, when the limits reset. */
  end: string;
}

export function spendPeriod(at: Date): SpendPeriod {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { month: spendMonth(at), start: start.toISOString(), end: end.toISOString() };
}
