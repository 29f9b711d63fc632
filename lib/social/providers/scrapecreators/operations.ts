/**
 * The operations ScrapeCreators has an endpoint for: the catalog's names minus what the vendor
 * lacks. Names only, so that the http provider's `serves` (its descriptor, http.ts) costs no
 * mapping.
 */
import { OPERATION_NAMES } from '../../catalog/names.ts';

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
 * The operations ScrapeCreators has an endpoint for, in catalog order: each one a mapping in this
 * folder (each network's translation test checks that its mappings are exactly these).
 */
export const SCRAPECREATORS_OPERATIONS: ReadonlySet<string> = new Set(OPERATION_NAMES.filter((name) => !SCRAPECREATORS_LACKS.has(name)));
