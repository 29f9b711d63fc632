/**
 * What a run's provider calls did, one entry per provider tried, in order: recorded with the
 * writes the run makes anyway (the stored result of a success, the refund event of a failure),
 * never by a write of its own, and counted off the run's path by the table stream's health
 * consumer (consumer.ts). Encoded as one short string: `http:fail:10000,tikhub:ok:420`.
 */

/** `ok`: the provider answered (a result, an empty one, or "not found"); `fail`: it failed (timeout, 5xx, 429, garbage). */
export interface Attempt {
  provider: string;
  ok: boolean;
  ms: number;
}

export const encodeAttempts = (attempts: readonly Attempt[]): string =>
  attempts.map((attempt) => `${attempt.provider}:${attempt.ok ? 'ok' : 'fail'}:${Math.max(0, Math.round(attempt.ms))}`).join(',');

/** The attempts a string names; entries that do not read as one are left out (never trusted further). */
export function decodeAttempts(text: unknown): Attempt[] {
  if (typeof text !== 'string' || text.length > 2_000) return [];
  const attempts: Attempt[] = [];
  for (const entry of text.split(',')) {
    const match = /^([a-z0-9_]{1,40}):(ok|fail):([0-9]{1,9})$/.exec(entry);
    if (match) attempts.push({ provider: match[1] as string, ok: match[2] === 'ok', ms: Number(match[3]) });
  }
  return attempts;
}
