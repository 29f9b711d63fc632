/**
 * Stripe's webhook signature, checked here rather than with the SDK's verifier so that nothing
 * parses a body before it is known to be Stripe's: `Stripe-Signature: t=<unix s>,v1=<hex>[,v1=…]`,
 * each `v1` an HMAC-SHA256 of `<t>.<raw body>` with a signing secret. Any `v1` may match any of
 * the secrets given (two during a rotation: Stripe signs with both while the old one lives).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far `t` may be from now: Stripe's own default tolerance, which bounds a replay. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** Null when one `v1` of the header is an HMAC of `<t>.<raw body>` with one of `secrets` and `t` is fresh; else why not. */
export function signatureProblem(
  header: string | undefined,
  rawBody: Buffer,
  secrets: readonly string[],
  nowSeconds: number,
): string | null {
  if (header === undefined || header.trim() === '') return 'is required';
  let timestamp: string | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at <= 0) return 'must be t=<unix seconds>,v1=<hex HMAC-SHA256>';
    const name = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (name === 't') timestamp = value;
    else if (name === 'v1' && HEX_SHA256.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp) || signatures.length === 0)
    return 'must be t=<unix seconds>,v1=<hex HMAC-SHA256>';
  if (Math.abs(nowSeconds - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS)
    return `is stale: its timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS} seconds from now`;
  const signed = Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), rawBody]);
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(signed).digest();
    if (signatures.some((candidate) => timingSafeEqual(candidate, expected))) return null;
  }
  return 'does not match the body with any signing secret of this endpoint';
}
