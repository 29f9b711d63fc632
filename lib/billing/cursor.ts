/**
 * Billing-event cursors: opaque to clients, tamper-proof, and bound to what they page through.
 * A cursor is `v1.<payload>.<HMAC-SHA256 of "v1.<payload>">`, base64url, signed with the
 * deployment's CURSOR_SIGNING_KEY. The payload names the organization, `days`, the fixed end of
 * the window (set by the first page, so that events written during the walk never shift it) and
 * the sort key of the last event returned. Pure: no I/O, no clock.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface PagePosition {
  orgId: string;
  days: number;
  /** The window's end (epoch ms), fixed by the first page. */
  endMs: number;
  /** The last event returned: `<created_at>#<id>`, its sort key without the prefix. */
  after: string;
}

const VERSION = 'v1';

const signature = (signed: string, key: string) => createHmac('sha256', key).update(signed).digest();

export function encodeCursor(position: PagePosition, key: string): string {
  const payload = Buffer.from(JSON.stringify({ o: position.orgId, d: position.days, e: position.endMs, a: position.after })).toString(
    'base64url',
  );
  const signed = `${VERSION}.${payload}`;
  return `${signed}.${signature(signed, key).toString('base64url')}`;
}

/** Why a cursor cannot be followed, as the sentence of its 400 issue. */
export type CursorProblem = string;

const NOT_ISSUED = 'is not a cursor this service issued for this listing; list again without a cursor';

/**
 * The position a cursor stands for, or the problem with it: not issued by this deployment (any
 * byte changed, or signed with another key), issued for another organization, or for another
 * `days`. The signature is checked first, so nothing unsigned is ever parsed.
 */
export function decodeCursor(cursor: string, key: string, expected: { orgId: string; days: number }): PagePosition | CursorProblem {
  const [version, payload, mac, ...rest] = cursor.split('.');
  if (version !== VERSION || !payload || !mac || rest.length > 0) return NOT_ISSUED;
  const given = Buffer.from(mac, 'base64url');
  const wanted = signature(`${VERSION}.${payload}`, key);
  // base64url decoding ignores stray characters: compare the text too, so that no edit passes.
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted) || mac !== wanted.toString('base64url')) return NOT_ISSUED;
  let fields: { o?: unknown; d?: unknown; e?: unknown; a?: unknown };
  try {
    fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return NOT_ISSUED;
  }
  const { o: orgId, d: days, e: endMs, a: after } = fields;
  if (typeof orgId !== 'string' || typeof days !== 'number' || typeof endMs !== 'number' || typeof after !== 'string') return NOT_ISSUED;
  if (orgId !== expected.orgId) return 'was issued for another organization';
  if (days !== expected.days) return `was issued for days=${days}; send days=${days} with it, or list again without a cursor`;
  return { orgId, days, endMs, after };
}
