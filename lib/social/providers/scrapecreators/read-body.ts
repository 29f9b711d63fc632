/**
 * Reading a vendor body against its recorded shape (a zod/mini schema), as tolerantly as the
 * untyped translation used to read it, but saying what did not fit.
 */
import type * as z from 'zod/mini';

const typeOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
const expected = (issue: z.core.$ZodIssue): string[] =>
  issue.code === 'invalid_type' ? [issue.expected] : issue.code === 'invalid_union' ? issue.errors.flat().flatMap(expected) : [issue.code];
/** "items.0.like_count: expected number or string, received object" (zod's own messages depend on a locale being loaded). */
const issueText = (issue: z.core.$ZodIssue) =>
  `${issue.path.length > 0 ? issue.path.join('.') : 'body'}: expected ${[...new Set(expected(issue))].join(' or ')}, received ${typeOf(issue.input)}`;

/** Paths deepest and last first: removing an array element then shifts no other path's index. */
const byPathDescending = (a: z.core.$ZodIssue, b: z.core.$ZodIssue) => {
  for (let i = 0; i < Math.min(a.path.length, b.path.length); i++) {
    const [x, y] = [a.path[i], b.path[i]];
    if (x !== y) return typeof x === 'number' && typeof y === 'number' ? y - x : String(y).localeCompare(String(x));
  }
  return b.path.length - a.path.length;
};

/** The object or array holding the value at `path`, and its key there. */
function holderOf(root: unknown, path: readonly PropertyKey[]): { holder: object; key: PropertyKey } | undefined {
  let holder = root;
  for (const key of path.slice(0, -1)) holder = typeof holder === 'object' && holder !== null ? Reflect.get(holder, key) : undefined;
  const key = path.at(-1);
  return key !== undefined && typeof holder === 'object' && holder !== null ? { holder, key } : undefined;
}

/**
 * The body as `response` types it. A value of another type than recorded (text where a count
 * was, a string where an object was, null in a list) is read as absent, which is what the
 * untyped translation made of it (null), and listed in `unreadable`; a missing required value
 * (or one of another type), or a body that is not an object, is refused (the run is refunded).
 * The common case, a body of the recorded shape, is one parse.
 */
export function readBody<Response extends z.ZodMiniType>(response: Response, body: unknown) {
  const unreadable: string[] = [];
  // What was removed where, to report a required value as it was rather than as missing.
  const removed = new WeakMap<object, Map<PropertyKey, z.core.$ZodIssue>>();
  let value = body;
  for (let attempt = 0; attempt < 10; attempt++) {
    const parsed = response.safeParse(value, { reportInput: true });
    if (parsed.success) return { data: parsed.data, unreadable };
    if (attempt === 0) value = structuredClone(body);
    const issues = [...new Map(parsed.error.issues.map((issue) => [issue.path.join('.'), issue])).values()].sort(byPathDescending);
    const missing: z.core.$ZodIssue[] = [];
    for (const issue of issues) {
      const at = holderOf(value, issue.path);
      if (!at || Reflect.get(at.holder, at.key) === undefined) {
        missing.push((at && removed.get(at.holder)?.get(at.key)) ?? issue);
      } else if (Array.isArray(at.holder) && typeof at.key === 'number') {
        at.holder.splice(at.key, 1);
        unreadable.push(issueText(issue));
      } else {
        Reflect.deleteProperty(at.holder, at.key);
        removed.set(at.holder, (removed.get(at.holder) ?? new Map()).set(at.key, issue));
        unreadable.push(issueText(issue));
      }
    }
    if (missing.length > 0) throw new Error(missing.map(issueText).join('; '));
  }
  throw new Error(`values of an unexpected type at more than ${unreadable.length} places`);
}
