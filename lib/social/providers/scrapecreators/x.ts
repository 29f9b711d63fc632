/**
 * X on ScrapeCreators (its paths say `twitter`): X's GraphQL user and tweet objects, the
 * interesting fields under `legacy` (social-operations.md, "X (Twitter)").
 */
import * as z from 'zod/mini';
import { PROFILE_URL } from '../../mention.ts';
import { type Mappings, mapping, type Vendor } from './mapping.ts';
import { author, media, page, post, profile } from './output.ts';
import { bareHandle, given, int } from './read.ts';
import { count, flag, id, list, object, text, time } from './vendor-shapes.ts';

// ------------------------------------------------------------------ the vendor's shapes

const userShape = () =>
  z.object({
    rest_id: id(),
    is_blue_verified: flag(),
    legacy: object({ screen_name: text(), name: text(), profile_image_url_https: text(), verified: flag() }),
  });

const mediaShape = () =>
  z.object({
    type: text(),
    media_url_https: text(),
    original_info: object({ width: count(), height: count() }),
    video_info: object({ duration_millis: count(), variants: list(z.object({ content_type: text(), url: text() })) }),
  });

const tweetShape = () =>
  z.object({
    rest_id: id(),
    url: text(),
    views: object({ count: count() }),
    core: object({ user_results: object({ result: z.nullish(userShape()) }) }),
    legacy: object({
      full_text: text(),
      created_at: time(),
      favorite_count: count(),
      reply_count: count(),
      retweet_count: count(),
      bookmark_count: count(),
      quote_count: count(),
      extended_entities: object({ media: list(mediaShape()) }),
    }),
  });

// ------------------------------------------------------------------ translation

const xUser = (u: Vendor<typeof userShape> | null | undefined) => {
  const legacy = u?.legacy;
  return author({
    id: u?.rest_id,
    username: legacy?.screen_name,
    display_name: legacy?.name,
    avatar_url: legacy?.profile_image_url_https,
    url: legacy?.screen_name ? PROFILE_URL.x(legacy.screen_name) : null,
    verified: u?.is_blue_verified ?? legacy?.verified,
  });
};

const tweetMedia = (m: Vendor<typeof mediaShape>) =>
  m.type === 'photo'
    ? media('image', m.media_url_https, { width: m.original_info?.width, height: m.original_info?.height })
    : media(
        'video',
        // The last mp4 variant is the highest bitrate.
        (m.video_info?.variants ?? []).filter((variant) => variant.content_type === 'video/mp4').at(-1)?.url,
        {
          thumbnail: m.media_url_https,
          seconds: typeof m.video_info?.duration_millis === 'number' ? m.video_info.duration_millis / 1000 : null,
        },
      );

const tweet = (t: Vendor<typeof tweetShape>) => {
  const legacy = t.legacy;
  const user = xUser(t.core?.user_results?.result);
  const mediaList = (legacy?.extended_entities?.media ?? []).map(tweetMedia);
  return post({
    network: 'x',
    id: t.rest_id,
    url: t.url ?? (user.username ? `https://x.com/${user.username}/status/${t.rest_id}` : null),
    type: mediaList.some((m) => m.type === 'video')
      ? 'video'
      : mediaList.length > 1
        ? 'carousel'
        : mediaList.length === 1
          ? 'image'
          : 'text',
    author: user,
    text: legacy?.full_text,
    created_at: legacy?.created_at,
    media: mediaList,
    metrics: {
      views: int(t.views?.count),
      likes: int(legacy?.favorite_count),
      comments: int(legacy?.reply_count),
      shares: int(legacy?.retweet_count),
      saves: int(legacy?.bookmark_count),
      quotes: int(legacy?.quote_count),
    },
  });
};

export const x = {
  x_profile: mapping({
    path: '/v1/twitter/profile',
    params: (input) => ({ handle: bareHandle(input.handle) }),
    response: () =>
      z.object({
        rest_id: id(),
        is_blue_verified: flag(),
        legacy: z.object({
          // The profile's URL is made from it: a profile without one is not a usable answer.
          screen_name: z.string(),
          name: text(),
          description: text(),
          profile_image_url_https: text(),
          url: text(),
          verified: flag(),
          protected: flag(),
          location: text(),
          created_at: time(),
          followers_count: count(),
          friends_count: count(),
          statuses_count: count(),
          favourites_count: count(),
        }),
      }),
    translate: ({ rest_id, is_blue_verified, legacy }) =>
      profile('x', {
        id: rest_id,
        username: legacy.screen_name,
        display_name: legacy.name,
        bio: legacy.description,
        avatar_url: legacy.profile_image_url_https,
        url: PROFILE_URL.x(legacy.screen_name),
        external_url: legacy.url,
        verified: is_blue_verified ?? legacy.verified,
        private: legacy.protected ?? null,
        location: legacy.location,
        created_at: legacy.created_at,
        followers: legacy.followers_count,
        following: legacy.friends_count,
        posts_count: legacy.statuses_count,
        likes_count: legacy.favourites_count,
      }),
  }),
  x_user_posts: mapping({
    // SC returns about 100 of the account's most popular posts in one piece: no paging.
    path: '/v1/twitter/user-tweets',
    params: (input) => ({ handle: bareHandle(input.handle) }),
    response: () => z.object({ tweets: list(tweetShape()) }),
    translate: (body, input) =>
      page((body.tweets ?? []).slice(0, typeof input.count === 'number' ? input.count : undefined).map(tweet), null, false),
  }),
  x_post: mapping({
    path: '/v1/twitter/tweet',
    params: (input) => ({ url: given(input.url) }),
    response: tweetShape,
    translate: (body) => tweet(body),
  }),
} satisfies Mappings;
