/**
 * Facebook Scraper3's stand-in (vendor-stub.ts) for the `facebook_scraper3` provider's tests:
 * RapidAPI's key and host headers (the gateway refuses a key it does not know with 401 and
 * `{message}`, and routes by `x-rapidapi-host`), its search answers `{results[], cursor}` and its
 * post lookup `{results: <post>}`, with rows of the keys its public clients read (lib/social/providers/facebook-scraper3.ts).
 */
import { startVendorStub, type VendorStub } from './vendor-stub.ts';

export const FACEBOOK_SCRAPER3_STUB_KEY = 'rapidapi-test-key';

/** `GET /search/posts`: a photo post, a video post, a text post; more on the next page. */
const POSTS = {
  results: [
    {
      type: 'post',
      post_id: '1431426125696772',
      url: 'https://www.facebook.com/NatGeoMuseum/posts/pfbid02MmmxmHinoAbb2Aidf7TZHH1fSR4w8UmPYUXKT86HgHFAHryrD54bW5113ZPQ2gzYl',
      message: 'Meet the #artemis crew at the museum this weekend with @NASA',
      message_rich: 'Meet the #artemis crew at the museum this weekend with @NASA',
      timestamp: 1726099719,
      comments_count: 42,
      reactions_count: 1250,
      reshare_count: 88,
      reactions: { angry: 0, care: 3, haha: 1, like: 1200, love: 40, sad: 0, wow: 6 },
      author: {
        id: '100064881934421',
        name: 'National Geographic Museum',
        url: 'https://www.facebook.com/NatGeoMuseum',
        profile_picture_url: 'https://scontent.xx.fbcdn.net/v/natgeo.jpg',
      },
      image: { uri: 'https://scontent.xx.fbcdn.net/v/crew.jpg', width: 1080, height: 720, id: '998877' },
      video: null,
      album_preview: null,
    },
    {
      type: 'post',
      post_id: '859693417025820',
      url: 'https://www.facebook.com/NASA/videos/859693417025820',
      message: 'Liftoff!',
      timestamp: 1726000000,
      comments_count: 310,
      reactions_count: 9800,
      reshare_count: 1500,
      author: { id: '54971236771', name: 'NASA', url: 'https://www.facebook.com/NASA' },
      image: { uri: 'https://scontent.xx.fbcdn.net/v/liftoff-thumb.jpg', width: 1280, height: 720 },
      video: 'https://video.xx.fbcdn.net/v/liftoff.mp4',
    },
    {
      type: 'post',
      post_id: '1134687898785891',
      url: 'https://www.facebook.com/groups/spacefans/posts/1134687898785891',
      message: 'Who is watching the launch tonight?',
      timestamp: 1725900000,
      comments_count: 5,
      reactions_count: 17,
      reshare_count: 0,
      author: { id: '100000001', name: 'Ada Watcher', url: 'https://www.facebook.com/ada.watcher' },
    },
  ],
  cursor: 'AbqJc2VhcmNoX3Bvc3RzX3BhZ2VfMg',
};

/** `GET /search/videos`: two videos, the last page. */
const VIDEOS = {
  results: [
    {
      video_id: '859693417025820',
      video_url: 'https://www.facebook.com/watch/?v=859693417025820',
      title: 'Artemis II rollout',
      description: 'The rocket rolls out to the pad.',
      author_name: 'NASA',
      is_author_verified: true,
      thumbnail_url: 'https://scontent.xx.fbcdn.net/v/rollout.jpg',
      views: '1.2M views',
      time_ago: '3 days ago',
    },
    {
      video_id: '2209384756',
      video_url: 'https://www.facebook.com/watch/?v=2209384756',
      title: 'Launch watch party',
      description: null,
      author_name: 'Space Fans',
      is_author_verified: false,
      thumbnail_url: null,
      views: '950 views',
      time_ago: '2 weeks ago',
    },
  ],
  cursor: null,
};

/** `GET /post?post_id=`: one post, whichever id is asked for (the stub does not look it up). */
const POST = { results: POSTS.results[0] };

/** `GET /post/comments?post_id=&cursor=`: a comment and a reply to it, the keys the live test asserts; more on the next page. */
const COMMENTS = {
  results: [
    {
      type: 'comment',
      comment_id: 'Y29tbWVudDoxNDMxNDI2MTI1Njk2NzcyXzEwMDAx',
      legacy_comment_id: '1431426125696772_10001',
      depth: 0,
      created_time: 1726100000,
      message: 'See you there!',
      author: {
        id: '100000002',
        name: 'Grace Orbit',
        url: 'https://www.facebook.com/grace.orbit',
        profile_image: 'https://scontent.xx.fbcdn.net/v/grace.jpg',
      },
      parent_comment_id: null,
      replies_count: 1,
      reactions_count: '12',
    },
    {
      type: 'comment',
      comment_id: 'Y29tbWVudDoxNDMxNDI2MTI1Njk2NzcyXzEwMDAy',
      legacy_comment_id: '1431426125696772_10002',
      depth: 1,
      created_time: 1726100600,
      message: 'Me too',
      author: { id: '100000003', name: 'Alan Launch', url: 'https://www.facebook.com/alan.launch', profile_image: null },
      parent_comment_id: 'Y29tbWVudDoxNDMxNDI2MTI1Njk2NzcyXzEwMDAx',
      replies_count: 0,
      reactions_count: 3,
    },
  ],
  cursor: 'MTcyNjEwMDYwMDoy',
};

export const FACEBOOK_SCRAPER3_FIXTURES: Readonly<Record<string, unknown>> = {
  '/search/posts': POSTS,
  '/search/videos': VIDEOS,
  '/post': POST,
  '/post/comments': COMMENTS,
};

export const startFacebookScraper3Stub = (): Promise<VendorStub> =>
  startVendorStub({
    refused: (request) =>
      request.headers['x-rapidapi-key'] !== FACEBOOK_SCRAPER3_STUB_KEY
        ? { status: 401, body: { message: 'Invalid API key. Go to https://docs.rapidapi.com/docs/keys for more info.' } }
        : request.headers['x-rapidapi-host'] !== request.headers.host
          ? { status: 404, body: { message: "API doesn't exists" } }
          : undefined,
    fixtures: FACEBOOK_SCRAPER3_FIXTURES,
    notFound: { message: "Endpoint '/search/x' does not exist" },
  });
