/**
 * Whose a page's cursor is. A paged operation's `next_cursor` is its vendor's own (a
 * ScrapeCreators cursor means nothing to Facebook Scraper3), so when an operation has more than
 * one provider, each page's cursor says which one issued it: `~<provider>~<the vendor's cursor>`.
 * The next page goes to that provider alone, its own cursor restored; with its breaker open the
 * run answers 503 `operation_unavailable` before any charge, as when every provider is skipped.
 * A cursor without a tag of the operation's providers (issued while it had one provider, or a
 * vendor cursor that happens to start with `~`) goes to them as sent, in order, as before.
 */
import type { SocialProvider } from './providers/types.ts';

const TAG = /^~([a-z0-9_]{1,40})~(?=.)/s;

/** The provider of `providers` a cursor's tag names, and the vendor's own cursor; undefined for a cursor without one. */
function ownerOf(cursor: unknown, providers: readonly Pick<SocialProvider, 'name'>[]): { provider: string; cursor: string } | undefined {
  if (typeof cursor !== 'string') return undefined;
  const tag = TAG.exec(cursor);
  const provider = tag?.[1];
  if (!tag || !provider || !providers.some((candidate) => candidate.name === provider)) return undefined;
  return { provider, cursor: cursor.slice(tag[0].length) };
}

/** The providers a run of this input may go to: the one its cursor names, or all of them. */
export function providersForCursor<Provider extends Pick<SocialProvider, 'name'>>(
  providers: readonly Provider[],
  input: Readonly<Record<string, unknown>>,
): Provider[] {
  const owner = ownerOf(input.cursor, providers);
  return owner ? providers.filter((provider) => provider.name === owner.provider) : [...providers];
}

/** The input as its provider takes it: the vendor's own cursor, without our tag. */
export function withVendorCursor(
  input: Record<string, unknown>,
  providers: readonly Pick<SocialProvider, 'name'>[],
): Record<string, unknown> {
  const owner = ownerOf(input.cursor, providers);
  return owner ? { ...input, cursor: owner.cursor } : input;
}

/** A page as the client gets it: its `next_cursor` tagged with the provider that answered, when the operation has several. */
export function withCursorOwner(output: unknown, provider: string, providers: readonly unknown[]): unknown {
  if (providers.length < 2 || typeof output !== 'object' || output === null) return output;
  const { next_cursor } = output as { next_cursor?: unknown };
  return typeof next_cursor === 'string' ? { ...output, next_cursor: `~${provider}~${next_cursor}` } : output;
}
