import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../lib/db/client.ts';
import { orgKey } from '../../lib/db/keys.ts';

/** A valid input for each operation: what a user would really send. */
export const VALID_INPUTS: Record<string, Record<string, unknown>> = {
  instagram_profile: { handle: 'natgeo' },
  instagram_user_posts: { handle: '@natgeo' },
  instagram_user_reels: { handle: 'natgeo' },
  instagram_user_stories: { handle: 'natgeo' },
  instagram_user_highlights: { handle: 'natgeo' },
  instagram_highlight_stories: { highlight_id: '17912345678901234' },
  instagram_post: { url: 'https://www.instagram.com/p/C8xYz12AbCd/' },
  instagram_post_comments: { url: 'https://www.instagram.com/reel/C8xYz12AbCd/' },
  tiktok_profile: { handle: 'nasa' },
  tiktok_user_posts: { handle: 'nasa', sort: 'popular' },
  tiktok_post: { url: 'https://www.tiktok.com/@nasa/video/7301234567890123456' },
  tiktok_post_comments: { url: 'https://www.tiktok.com/@nasa/video/7301234567890123456' },
  tiktok_search: { query: 'rocket launch', date_posted: 'this-week' },
  tiktok_hashtag_posts: { hashtag: '#space' },
  tiktok_music_posts: { music_id: '7016547803243022337' },
  tiktok_trending: { region: 'US' },
  tiktok_trend_scan: { region: 'GB', kinds: ['hashtag', 'sound'], count: 10 },
  linkedin_profile: { url: 'https://www.linkedin.com/in/satyanadella' },
  linkedin_company: { url: 'https://www.linkedin.com/company/microsoft' },
  linkedin_user_posts: { url: 'https://www.linkedin.com/in/satyanadella' },
  linkedin_company_posts: { url: 'https://www.linkedin.com/company/microsoft' },
  linkedin_post: { url: 'https://www.linkedin.com/posts/satyanadella_ai-activity-7123456789012345678-abcd' },
  linkedin_search_people: { query: 'data engineer', location: 'Berlin' },
  linkedin_search_posts: { query: 'serverless' },
  youtube_channel: { channel: '@NASA' },
  youtube_channel_videos: { channel: 'UCLA_DiR1FfKNvjuUpBHmylQ' },
  youtube_channel_playlists: { channel: 'https://www.youtube.com/@NASA' },
  youtube_channel_shorts: { channel: '@NASA', sort: 'popular' },
  youtube_video: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
  youtube_search: { query: 'lofi beats', type: 'shorts' },
  youtube_trending: { region: 'JP', count: 5 },
  facebook_page: { url: 'https://www.facebook.com/nasa' },
  facebook_page_posts: { url: 'https://www.facebook.com/nasa' },
  facebook_page_reels: { url: 'https://www.facebook.com/nasa' },
  facebook_post: { url: 'https://www.facebook.com/nasa/posts/pfbid0abc' },
  facebook_post_comments: { url: 'https://www.facebook.com/nasa/posts/pfbid0abc' },
  facebook_group: { url: 'https://www.facebook.com/groups/123456789' },
  facebook_group_posts: { url: 'https://www.facebook.com/groups/123456789' },
  facebook_search: { query: 'community garden' },
  reddit_search: { query: 'dynamodb single table', subreddit: 'r/aws' },
  reddit_subreddit_posts: { subreddit: 'aws', sort: 'top', timeframe: 'week' },
  reddit_post: { url: 'https://www.reddit.com/r/aws/comments/1abcde/single_table_design/' },
  reddit_post_comments: { url: 'https://www.reddit.com/r/aws/comments/1abcde/single_table_design/' },
  x_search: { query: 'from:nasa -is:retweet', count: 10 },
  x_profile: { handle: '@nasa' },
  x_user_posts: { handle: 'nasa' },
  x_post: { url: 'https://x.com/nasa/status/1834567890123456789' },
  x_post_comments: { url: 'https://twitter.com/nasa/status/1834567890123456789' },
  x_user_connections: { handle: 'nasa', kind: 'following' },
  x_tweet_engagers: { url: 'https://x.com/nasa/status/1834567890123456789', type: 'quoters' },
  x_trends: { region: 'WW' },
  resolve_mention: { mention: 'https://www.tiktok.com/@nasa', verify: true },
};

export const runUrl = (operation: string, orgId: string) => `/social/${operation}?organization_id=${orgId}`;

/** The organization's billing events, oldest first (straight from the table). */
export async function eventsOf(orgId: string) {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': orgKey(orgId).PK, ':prefix': 'EVENT#' },
      ConsistentRead: true,
    }),
  );
  return (result.Items ?? []).map((item) => ({
    type: item.type,
    amount: Number(item.amount),
    title: item.title,
    description: item.description,
  }));
}
