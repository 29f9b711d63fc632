/**
 * The invitation routes' request fields and answers (docs/invitations.md), shared by the routes
 * that take or answer them: the email address's one rule, an invitation as its owners see it,
 * its statuses.
 */
import * as z from 'zod/mini';
import { ROLES } from '../model.ts';

export const INVITATION_STATUSES = ['pending', 'accepted', 'revoked', 'expired'] as const;

export const MAX_EMAIL_CHARS = 254;
const EMAIL_RULE =
  'must be an email address: at most 254 characters, no spaces or control characters, one "@" with 1 to 64 characters before it and two or more dot-separated labels after it';

/**
 * Why `email` (already trimmed and lower-cased) is not an address, or null. Nothing else is
 * changed or checked: dots and `+` tags stay, as the address's owner wrote them. Pure.
 */
export function emailProblem(email: string): string | null {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (email.length > MAX_EMAIL_CHARS || /[\s\u0000-\u001f\u007f-\u009f]/u.test(email)) return EMAIL_RULE;
  const parts = email.split('@');
  if (parts.length !== 2) return EMAIL_RULE;
  const [local = '', domain = ''] = parts;
  if (local.length < 1 || local.length > 64) return EMAIL_RULE;
  const labels = domain.split('.');
  if (labels.length < 2 || labels.some((label) => label === '')) return EMAIL_RULE;
  return null;
}

/** `email`: trimmed and lower-cased whole, then held to emailProblem's rule. */
export const invitationEmailField = z
  .string()
  .check(
    z.trim(),
    z.toLowerCase(),
    z.maxLength(MAX_EMAIL_CHARS, { error: EMAIL_RULE, abort: true }),
    z.refine((email) => emailProblem(email) === null, { error: EMAIL_RULE }),
  )
  .register(z.globalRegistry, {
    description:
      'The address to invite, trimmed and lower-cased whole (nothing else: dots and `+` tags stay): at most 254 characters, no whitespace or control character, one `@` with 1 to 64 characters before it and two or more dot-separated labels after it.',
    examples: ['ada@example.com'],
  });

/** One invitation as the invitation routes answer it, never with its token (for the OpenAPI document). */
export const invitationSchema = z.object({
  id: z.string().register(z.globalRegistry, { description: 'the invitation id, `inv_` and 32 hex digits (sorting by creation time)' }),
  organization_id: z.string(),
  email: z.string().register(z.globalRegistry, { description: 'the address invited, trimmed and lower-cased' }),
  role: z.enum(ROLES),
  spending_limit: z
    .nullable(z.int())
    .register(z.globalRegistry, { description: "the member's monthly (UTC) limit once accepted; null: none" }),
  daily_limit: z.nullable(z.int()).register(z.globalRegistry, { description: "the member's daily (UTC) limit once accepted; null: none" }),
  status: z.enum(INVITATION_STATUSES).register(z.globalRegistry, {
    description: '`expired`: a pending invitation past `expires_at`, as read',
  }),
  invited_by: z.nullable(z.string()).register(z.globalRegistry, { description: "the inviting owner's user id; null for an operator's" }),
  created_at: z.string(),
  expires_at: z.string().register(z.globalRegistry, { description: 'when its token stops being accepted: a resend moves it' }),
  accepted_at: z.nullable(z.string()),
});
