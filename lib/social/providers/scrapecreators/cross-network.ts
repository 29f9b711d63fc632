/**
 * resolve_mention on ScrapeCreators: the mention is parsed locally (lib/social/mention.ts); to
 * verify it, the provider runs the network's profile operation, chosen here, and reads the
 * account's details from that operation's output.
 */
import * as z from 'zod/mini';
import type { OperationName } from '../../catalog/names.ts';
import type { MentionReference } from '../../mention.ts';
import type { Input } from './mapping.ts';

/** Which profile operation verifies a mention, and with what input; null when none can. */
export function verificationFor(match: MentionReference): { operation: OperationName; input: Input } | null {
  switch (match.network) {
    case 'instagram':
      return { operation: 'instagram_profile', input: { handle: match.handle } };
    case 'tiktok':
      return { operation: 'tiktok_profile', input: { handle: match.handle } };
    case 'x':
      return { operation: 'x_profile', input: { handle: match.handle } };
    case 'youtube':
      return { operation: 'youtube_channel', input: { channel: match.url } };
    case 'facebook':
      return match.kind === 'group' ? null : { operation: 'facebook_page', input: { url: match.url } };
    case 'linkedin':
      return { operation: match.kind === 'company' ? 'linkedin_company' : 'linkedin_profile', input: { url: match.url } };
    default:
      return null;
  }
}

/** The fields of our profile and company outputs that resolve_mention reports (a small schema, built when a mention is verified). */
const account = () =>
  z.object({
    id: z.nullish(z.string()),
    display_name: z.nullish(z.string()),
    name: z.nullish(z.string()),
    avatar_url: z.nullish(z.string()),
    logo_url: z.nullish(z.string()),
    private: z.nullish(z.boolean()),
    verified: z.nullish(z.boolean()),
  });

/** What the verifying operation's output says about the account (a profile, or a company). */
export function verifiedAccount(output: unknown) {
  const found = account().parse(output);
  return {
    status: found.private === true ? ('private' as const) : ('found' as const),
    id: found.id ?? null,
    display_name: found.display_name ?? found.name ?? null,
    avatar_url: found.avatar_url ?? found.logo_url ?? null,
    verified: found.verified ?? null,
  };
}
