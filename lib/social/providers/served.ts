/**
 * Which operations each provider serves, apart from the providers themselves: the listing
 * filters by this without importing a provider, so ListSocialOperations bundles neither the
 * ScrapeCreators mappings nor the Secrets Manager client. The providers' `serves` read the same
 * answer, so listing and running agree.
 */
import { OPERATION_NAMES } from '../catalog/names.ts';
import type { SocialProvider } from './types.ts';

/**
 * The catalog operations ScrapeCreators has no endpoint for (social-operations.md, section C).
 * resolve_mention is parsed locally, so it is not a vendor operation either way.
 */
const SCRAPECREATORS_LACKS = new Set([
  'instagram_user_stories',
  'tiktok_trend_scan',
  'linkedin_user_posts',
  'linkedin_search_people',
  'youtube_trending',
  'facebook_search',
  'x_search',
  'x_post_comments',
  'x_user_connections',
  'x_tweet_engagers',
  'x_trends',
  'resolve_mention',
]);

/**
 * The operations ScrapeCreators has an endpoint for, in catalog order (each one a mapping in
 * scrapecreators.ts, which checks at load that its mappings are exactly these).
 */
export const SCRAPECREATORS_OPERATIONS: ReadonlySet<string> = new Set(OPERATION_NAMES.filter((name) => !SCRAPECREATORS_LACKS.has(name)));

/**
 * Whether a provider can run an operation. The sample provider serves every operation; the
 * http provider those ScrapeCreators maps, and resolve_mention (parsed locally, verified with
 * a mapped profile operation).
 */
export const serves = (provider: SocialProvider['name'], operation: string): boolean =>
  provider === 'sample' || operation === 'resolve_mention' || SCRAPECREATORS_OPERATIONS.has(operation);

/**
 * How the API names a deployment's provider to its clients (the listing's `provider`, the 403 of
 * an operation it does not serve): the vendor, not the configuration's word for it (`http`).
 */
export const PROVIDER_NAMES: Readonly<Record<SocialProvider['name'], string>> = { http: 'ScrapeCreators', sample: 'sample' };
