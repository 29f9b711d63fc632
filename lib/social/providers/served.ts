/**
 * Which operations each provider serves, apart from the providers themselves: the listing
 * filters by this without importing a provider, so ListSocialOperations bundles neither the
 * ScrapeCreators mappings nor the Secrets Manager client. The providers' `serves` read the same
 * answer, so listing and running agree.
 */
import type { SocialProvider } from './types.ts';

/**
 * The operations ScrapeCreators has an endpoint for (each one a mapping in scrapecreators.ts,
 * which checks at load that its mappings are exactly these), in catalog order.
 */
export const SCRAPECREATORS_OPERATIONS: ReadonlySet<string> = new Set([
  'instagram_profile',
  'instagram_user_posts',
  'instagram_user_reels',
  'instagram_user_highlights',
  'instagram_highlight_stories',
  'instagram_post',
  'instagram_post_comments',
  'tiktok_profile',
  'tiktok_user_posts',
  'tiktok_post',
  'tiktok_post_comments',
  'tiktok_search',
  'tiktok_hashtag_posts',
  'tiktok_music_posts',
  'tiktok_trending',
  'linkedin_profile',
  'linkedin_company',
  'linkedin_company_posts',
  'linkedin_post',
  'linkedin_search_posts',
  'youtube_channel',
  'youtube_channel_videos',
  'youtube_channel_playlists',
  'youtube_channel_shorts',
  'youtube_video',
  'youtube_search',
  'facebook_page',
  'facebook_page_posts',
  'facebook_page_reels',
  'facebook_post',
  'facebook_post_comments',
  'facebook_group',
  'facebook_group_posts',
  'reddit_search',
  'reddit_subreddit_posts',
  'reddit_post',
  'reddit_post_comments',
  'x_profile',
  'x_user_posts',
  'x_post',
]);

/**
 * Whether a provider can run an operation. The sample provider serves every operation; the
 * http provider those ScrapeCreators maps, and resolve_mention (parsed locally, verified with
 * a mapped profile operation).
 */
export const serves = (provider: SocialProvider['name'], operation: string): boolean =>
  provider === 'sample' || operation === 'resolve_mention' || SCRAPECREATORS_OPERATIONS.has(operation);
