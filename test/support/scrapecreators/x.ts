/** X as ScrapeCreators answers it: one payload per path (without the success envelope). */
import type { Fixtures } from './index.ts';

const tweet = (id: string) => ({
  rest_id: id,
  views: { count: '99000' },
  legacy: {
    full_text: 'We have liftoff #Artemis',
    created_at: 'Thu Sep 12 00:08:39 +0000 2024',
    favorite_count: 5000,
    retweet_count: 800,
    reply_count: 300,
    quote_count: 50,
    bookmark_count: 70,
    extended_entities: {
      media: [{ type: 'photo', media_url_https: 'https://pbs.twimg.com/media/a.jpg', original_info: { width: 1200, height: 800 } }],
    },
  },
  core: {
    user_results: {
      result: {
        rest_id: '11348282',
        is_blue_verified: true,
        legacy: { screen_name: 'NASA', name: 'NASA', profile_image_url_https: 'https://pbs.twimg.com/p.jpg' },
      },
    },
  },
});

export const x: Fixtures = {
  '/v1/twitter/profile': {
    rest_id: '11348282',
    is_blue_verified: true,
    legacy: {
      screen_name: 'NASA',
      name: 'NASA',
      description: 'Exploring the universe',
      location: 'Pale Blue Dot',
      url: 'https://t.co/x',
      created_at: 'Wed Dec 19 20:20:32 +0000 2007',
      followers_count: 88000000,
      friends_count: 180,
      statuses_count: 72000,
      favourites_count: 15000,
      profile_image_url_https: 'https://pbs.twimg.com/p.jpg',
    },
  },
  '/v1/twitter/user-tweets': { tweets: [tweet('1834567890123456789'), tweet('1834567890123456790')] },
  '/v1/twitter/tweet': tweet('1834567890123456789'),
};

/** Variants for branches the defaults above do not reach. */
export const variants = {
  /** A tweet with a video (the last mp4 variant is taken) and no SC url. */
  videoTweet: {
    rest_id: '1834567890123456791',
    legacy: {
      full_text: 'Replay @NASA_SLS',
      created_at: 'Fri Sep 13 10:00:00 +0000 2024',
      extended_entities: {
        media: [
          {
            type: 'video',
            media_url_https: 'https://pbs.twimg.com/v.jpg',
            video_info: {
              duration_millis: 30500,
              variants: [
                { content_type: 'application/x-mpegURL', url: 'https://video.twimg.com/v.m3u8' },
                { content_type: 'video/mp4', url: 'https://video.twimg.com/480.mp4' },
                { content_type: 'video/mp4', url: 'https://video.twimg.com/1080.mp4' },
              ],
            },
          },
        ],
      },
    },
    core: { user_results: { result: { rest_id: '11348282', legacy: { screen_name: 'NASA', verified: false } } } },
  },
};
