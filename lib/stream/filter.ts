/**
 * Which change records a consumer wants, written as Lambda's event filter patterns (the
 * `FilterCriteria` of an event source mapping) so that one description serves both sides: the
 * deployed event source mapping drops what no consumer wants before invoking (infra/table-stream.ts),
 * and the local poller and the handler apply the same patterns with `matchesFilter`.
 *
 * Only the part of Lambda's pattern syntax the consumers use: an object is matched field by field,
 * and a leaf is a list of alternatives, each an exact string or `{ prefix }`.
 */

export type FilterValue = string | { prefix: string };
export interface FilterPattern {
  [field: string]: readonly FilterValue[] | FilterPattern;
}

const matchesValue = (alternatives: readonly FilterValue[], value: unknown): boolean =>
  typeof value === 'string' &&
  alternatives.some((alternative) => (typeof alternative === 'string' ? alternative === value : value.startsWith(alternative.prefix)));

/** Whether `record` (a stream record as Lambda delivers it: `eventName`, `dynamodb.NewImage`, …) matches `pattern`. */
export function matchesFilter(pattern: FilterPattern, record: unknown): boolean {
  if (record === null || typeof record !== 'object') return false;
  return Object.entries(pattern).every(([field, expected]) => {
    const value = (record as Record<string, unknown>)[field];
    return Array.isArray(expected) ? matchesValue(expected, value) : matchesFilter(expected as FilterPattern, value);
  });
}

/** Whether any of `patterns` matches (Lambda's filters are alternatives). */
export const matchesAny = (patterns: readonly FilterPattern[], record: unknown): boolean =>
  patterns.some((pattern) => matchesFilter(pattern, record));
