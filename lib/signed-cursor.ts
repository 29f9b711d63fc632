/**
 * Paging cursors for the member and trash listings: opaque, tamper-proof and bound to the
 * listing, organization and query they page through (the billing events keep their own format,
 * lib/billing/cursor.ts). `v1.<payload>.<HMAC-SHA256>`, base64url, signed with the deployment's
 * CURSOR_SIGNING_KEY; at most 512 characters. Pure.
 *
 * That key guards paging and nothing else: a cursor only positions a caller within a listing
 * whose access is checked on every page, so the key may sit in a function's configuration, and
 * rotating it only restarts the walks in flight. Nothing that grants access is sealed here (an
 * OAuth consent ticket has its own key, read at run time: lib/oauth/sealing-key.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const VERSION = 'v1';
export const MAX_CURSOR_LENGTH = 512;

const mac = (signed: string, key: string) => createHmac('sha256', key).update(signed).digest();

/** A cursor for the page after `position`, within `scope` (listing, organization and query, e.g. `trash:org_a:asset`). */
export function sealCursor(scope: string, position: string, key: string): string {
  const payload = Buffer.from(JSON.stringify({ s: scope, p: position })).toString('base64url');
  const signed = `${VERSION}.${payload}`;
  return `${signed}.${mac(signed, key).toString('base64url')}`;
}

/** The position a cursor carries, or why it cannot be followed (the sentence of a 400 issue). */
export function openCursor(cursor: string, key: string, scope: string): { position: string } | { problem: string } {
  const notIssued = { problem: 'is not a cursor this service issued for this listing; list again without a cursor' };
  const [version, payload, given, ...rest] = cursor.split('.');
  if (cursor.length > MAX_CURSOR_LENGTH || version !== VERSION || !payload || !given || rest.length > 0) return notIssued;
  const wanted = mac(`${VERSION}.${payload}`, key);
  const givenBytes = Buffer.from(given, 'base64url');
  if (givenBytes.length !== wanted.length || !timingSafeEqual(givenBytes, wanted) || given !== wanted.toString('base64url'))
    return notIssued;
  let fields: { s?: unknown; p?: unknown };
  try {
    fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return notIssued;
  }
  if (typeof fields.s !== 'string' || typeof fields.p !== 'string') return notIssued;
  if (fields.s !== scope)
    return { problem: 'was issued for another organization or query; send the query it came with, or list again without a cursor' };
  return { position: fields.p };
}
