/**
 * Plain wording for validation issues whose message is zod's default ("Invalid input: expected
 * string, received number", "Too small: expected string to have >=1 characters"): the same
 * `<path>: <rule>` style as the service's own messages ("must be a string, not a number",
 * "must not be empty"). Messages a schema states itself are kept as they are. Pure.
 */
import type * as z from 'zod/mini';

/** zod's default messages start like this; the service's own never do (they start in lower case). */
const ZOD_DEFAULT = /^(Invalid|Too (small|big)|Unrecognized)/;
/** Unknown keys named in one message, at most (the rest are counted): the input is the client's, and may be huge. */
const KEYS_SHOWN = 5;

const NOUNS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bigint: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
  date: 'a date',
  record: 'an object',
  tuple: 'an array',
};

const kindOf = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;

const FORMATS: Record<string, string> = {
  url: 'must be a URL',
  uuid: 'must be a UUID',
  guid: 'must be a UUID',
  email: 'must be an email address',
  datetime: 'must be an ISO 8601 date-time in UTC, e.g. 2025-01-31T12:00:00Z',
  date: 'must be an ISO 8601 date, e.g. 2025-01-31',
  time: 'must be an ISO 8601 time, e.g. 12:00:00',
};

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

function bound(side: 'min' | 'max', issue: { origin?: string; minimum?: unknown; maximum?: unknown; inclusive?: boolean }): string {
  const limit = Number(side === 'min' ? issue.minimum : issue.maximum);
  const [atLeast, moreThan] = side === 'min' ? ['at least', 'greater than'] : ['at most', 'less than'];
  switch (issue.origin) {
    case 'string':
      return side === 'min' && limit === 1 ? 'must not be empty' : `must be ${atLeast} ${plural(limit, 'character')} long`;
    case 'array':
    case 'set':
      return side === 'min' && limit === 1 ? 'must not be empty' : `must have ${atLeast} ${plural(limit, 'item')}`;
    default:
      return `must be ${issue.inclusive === false ? moreThan : atLeast} ${limit}`;
  }
}

const quoted = (value: unknown) => JSON.stringify(value) ?? String(value);

/** The message of `issue` for a client; `value` is what was sent at the issue's path. */
export function issueMessage(issue: z.core.$ZodIssue, value: unknown): string {
  if (!ZOD_DEFAULT.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type': {
      const expected = NOUNS[issue.expected] ?? `a ${issue.expected}`;
      const sameKind = typeof value === 'number' && (issue.expected === 'int' || issue.expected === 'number');
      return sameKind ? `must be ${expected}` : `must be ${expected}, not ${kindOf(value)}`;
    }
    case 'too_small':
      return bound('min', issue);
    case 'too_big':
      return bound('max', issue);
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${quoted(issue.values[0])}` : `must be one of ${issue.values.map(quoted).join(', ')}`;
    case 'unrecognized_keys': {
      const shown = issue.keys.slice(0, KEYS_SHOWN).map(quoted).join(', ');
      const more = issue.keys.length > KEYS_SHOWN ? ` and ${issue.keys.length - KEYS_SHOWN} more` : '';
      return `has ${issue.keys.length === 1 ? 'an unknown field' : 'unknown fields'} ${shown}${more}`;
    }
    case 'invalid_format': {
      const known = FORMATS[issue.format];
      if (known) return known;
      if (issue.format === 'starts_with') return `must start with ${quoted((issue as { prefix?: string }).prefix)}`;
      if (issue.format === 'ends_with') return `must end with ${quoted((issue as { suffix?: string }).suffix)}`;
      if (issue.format === 'includes') return `must contain ${quoted((issue as { includes?: string }).includes)}`;
      return 'is not in the expected format';
    }
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'invalid_union':
      return 'matches none of the accepted forms';
    default:
      return 'is not valid';
  }
}
