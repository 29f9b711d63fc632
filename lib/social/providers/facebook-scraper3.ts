/**
 * The `facebook_scraper3` provider: the Facebook Scraper3 API on RapidAPI
 * (https://rapidapi.com/krasnoludkolo/api/facebook-scraper3), the third provider: for the one
 * operation neither ScrapeCreators nor TikHub serves, `facebook_search`, and as ScrapeCreators'
 * failover for `facebook_post` and `facebook_post_comments`. GET with query parameters, RapidAPI's `x-rapidapi-key` and
 * `x-rapidapi-host` headers; one attempt per run, as for the others (failover, not a blind
 * retry, is what tries again).
 *
 * `GET /search/posts` and `GET /search/videos` take `query` and `cursor` and answer
 * `{results[], cursor}`; `GET /post` takes `post_id` (a post's number, or the `pfbid…` token of
 * its URL) and answers `{results: <post row>}`; `GET /post/comments` takes `post_id` (its
 * number) and `cursor` and answers `{results[], cursor}` (docs/social-operations.md, "The third
 * provider"). The listing does not document the rows; they are read as two public clients of the
 * API read them, which agree: a test suite run against the live API that asserts each post row's
 * keys (of the search, of a page's posts, of `/post` and of `/post/comments`), and typed models
 * of every answer.
 * Post rows: `post_id`, `type`, `url`, `message`, `timestamp` (Unix seconds),
 * `reactions_count`, `comments_count`, `reshare_count`, `author{id, name, url,
 * profile_picture_url}`, `image{uri, width, height}`, `video` (a URL), `album_preview[]`. Video
 * rows: `video_id`, `video_url`, `title`, `description`, `author_name`, `is_author_verified`,
 * `thumbnail_url`, `views` ("1.2K views") and `time_ago` (relative: not a date, so
 * `created_at` is null). Any other shape is refused (failover or refund), never half-read.
 */
import * as z from 'zod/mini';
import { author, comment, media, page, post } from './scrapecreators/output.ts';
import { int, str } from './scrapecreators/read.ts';
import { count, flag, id, list, object, once, text, time } from './scrapecreators/vendor-shapes.ts';
import { type ProviderDescriptor, type ProviderRun, UpstreamError } from './types.ts';
import { field, readAnswer, vendorGet, vendorRefused } from './vendor-call.ts';
import { type VendorSettings, type VendorSetup, vendorSettings } from './vendor-key.ts';

export const FACEBOOK_SCRAPER3_OPERATIONS: ReadonlySet<string> = new Set(['facebook_search', 'facebook_post', 'facebook_post_comments']);

const FACEBOOK_SCRAPER3: VendorSetup = {
  stackName: 'FacebookScraper3',
  keyVariable: 'FACEBOOK_SCRAPER3_API_KEY',
  keyFields: ['api_key', 'x-rapidapi-key'],
  baseUrlVariable: 'FACEBOOK_SCRAPER3_BASE_URL',
  baseUrlParameter: 'FacebookScraper3BaseUrl',
  defaultBaseUrl: 'https://facebook-scraper3.p.rapidapi.com',
};

const postRow = () =>
  z.object({
    post_id: z.union([z.string().check(z.minLength(1)), z.number()]),
    type: text(),
    url: text(),
    message: text(),
    timestamp: time(),
    reactions_count: count(),
    comments_count: count(),
    reshare_count: count(),
    author: object({ id: id(), name: text(), url: text(), profile_picture_url: text() }),
    image: object({ uri: text(), width: count(), height: count() }),
    video: z.nullish(z.unknown()),
    album_preview: list(z.object({ image_file_uri: text() })),
  });
type PostRow = z.output<ReturnType<typeof postRow>>;

const videoRow = () =>
  z.object({
    video_id: z.union([z.string().check(z.minLength(1)), z.number()]),
    video_url: text(),
    title: text(),
    description: text(),
    author_name: text(),
    is_author_verified: flag(),
    thumbnail_url: text(),
    views: z.nullish(z.union([z.string(), z.number()])),
  });
type VideoRow = z.output<ReturnType<typeof videoRow>>;

/** A comment of `/post/comments`, with the keys the live test asserts (`reactions_count` may come as text). */
const commentRow = () =>
  z.object({
    comment_id: z.string().check(z.minLength(1)),
    legacy_comment_id: text(),
    message: text(),
    created_time: time(),
    parent_comment_id: id(),
    reactions_count: count(),
    replies_count: count(),
    author: object({ id: id(), name: text(), url: text(), profile_image: text() }),
  });
type CommentRow = z.output<ReturnType<typeof commentRow>>;

const answer = <Row extends z.ZodMiniType>(row: () => Row) => z.object({ results: z.array(row()), cursor: z.nullish(z.string()) });

// Built on the first run that reads them, then kept (vendor-shapes.ts says why).
const postsAnswer = once(() => answer(postRow));
const videosAnswer = once(() => answer(videoRow));
const postAnswer = once(() => z.object({ results: postRow() }));
const commentsAnswer = once(() => answer(commentRow));

const SCALE: Record<string, number> = { '': 1, K: 1e3, M: 1e6, B: 1e9 };

/** "1.2K views", "3M", "1,234 views", 56 → a count; anything else null (a count unknown, not zero). */
export function compactCount(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.floor(value) : null;
  const match = typeof value === 'string' ? /^\s*([0-9][0-9,]*(?:\.[0-9]+)?)\s*([KMB]?)\b/i.exec(value) : null;
  if (!match) return null;
  return Math.round(Number((match[1] as string).replaceAll(',', '')) * (SCALE[(match[2] as string).toUpperCase()] ?? 1));
}

function postOf(row: PostRow) {
  const images = row.image?.uri
    ? [media('image', row.image.uri, { width: row.image.width, height: row.image.height })]
    : (row.album_preview ?? []).map((photo) => media('image', photo.image_file_uri));
  const video = str(row.video);
  return post({
    network: 'facebook',
    id: row.post_id,
    url: row.url,
    type: video ? 'video' : images.length > 1 ? 'carousel' : images.length === 1 ? 'image' : 'text',
    author: author({
      id: row.author?.id,
      display_name: row.author?.name,
      url: row.author?.url,
      avatar_url: row.author?.profile_picture_url,
    }),
    text: row.message,
    created_at: row.timestamp,
    media: video ? [media('video', video, { thumbnail: row.image?.uri })] : images,
    metrics: { likes: int(row.reactions_count), comments: int(row.comments_count), shares: int(row.reshare_count) },
  });
}

function videoOf(row: VideoRow) {
  return post({
    network: 'facebook',
    id: row.video_id,
    url: row.video_url,
    type: 'video',
    author: author({ display_name: row.author_name, verified: row.is_author_verified }),
    title: row.title,
    text: row.description,
    media: [media('video', row.video_url, { thumbnail: row.thumbnail_url })],
    metrics: { views: compactCount(row.views) },
  });
}

const commentOf = (postId: string) => (row: CommentRow) =>
  comment('facebook', {
    // The legacy id is the one a facebook.com comment link carries (`comment_id=`).
    id: row.legacy_comment_id ?? row.comment_id,
    post_id: postId,
    parent_id: row.parent_comment_id,
    text: row.message,
    created_at: row.created_time,
    likes: row.reactions_count,
    reply_count: row.replies_count,
    author: author({ id: row.author?.id, display_name: row.author?.name, url: row.author?.url, avatar_url: row.author?.profile_image }),
  });

/**
 * Our cursor of a post's comments on Facebook Scraper3: the post's number and the vendor's cursor
 * (`<post id>:<cursor>`), so that a next page needs no lookup of the post again.
 */
const COMMENTS_CURSOR = /^([0-9]+):(.+)$/s;

/**
 * The id `/post` looks a post up by, from its URL: the segment after `/posts/` (a number, or the
 * `pfbid…` token the live test looks up), or `story_fbid` of a permalink. Videos, reels, photos
 * and fb.watch links name none it is known to take: undefined (not sent; the run is not this
 * provider's, and its health is untouched).
 */
export function postLookupId(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const segments = parsed.pathname.split('/').filter(Boolean);
  const after = segments.indexOf('posts');
  const id = after >= 0 ? segments[after + 1] : parsed.searchParams.get('story_fbid');
  return id && /^(pfbid[0-9A-Za-z]+|[0-9]+)$/.test(id) ? id : undefined;
}

/** SOCIAL_PROVIDER=…,facebook_scraper3: facebook_search (posts or videos), and facebook_post as ScrapeCreators' failover. */
export const FACEBOOK_SCRAPER3_PROVIDER: ProviderDescriptor<VendorSettings> = {
  name: 'facebook_scraper3',
  displayName: 'Facebook Scraper3',
  sampleData: false,
  vendor: FACEBOOK_SCRAPER3,
  settings: () => vendorSettings(FACEBOOK_SCRAPER3_PROVIDER, FACEBOOK_SCRAPER3),
  serves: (operation) => FACEBOOK_SCRAPER3_OPERATIONS.has(operation),
  create: async (settings) => facebookScraper3Provider(settings),
};

/** A post URL that names no id the API is known to take: not sent (the run is not this provider's). */
const unsupportedUrl = () =>
  new UpstreamError('Facebook Scraper3 looks a post up by the id in its URL, and this URL names none it takes', {
    code: 'unsupported_input',
  });

export function facebookScraper3Provider(options: VendorSettings): ProviderRun {
  // RapidAPI routes by this header: the API's host, which the base URL names.
  const host = new URL(options.baseUrl).host;
  /** One GET: the body if the status is 2xx, else an UpstreamError saying what RapidAPI's gateway or the API said. */
  const get = async (path: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown> => {
    const { status, ok, body } = await vendorGet(
      'Facebook Scraper3',
      `${options.baseUrl}${path}`,
      params,
      { 'x-rapidapi-key': await options.apiKey(), 'x-rapidapi-host': host },
      signal,
    );
    if (ok) return body;
    // RapidAPI's gateway says why in `message` (a key not subscribed, a rate limit); the API in `error`.
    throw vendorRefused('Facebook Scraper3', status, field(body, 'message') ?? field(body, 'error'));
  };
  const read = <Schema extends z.ZodMiniType>(operation: string, schema: Schema, body: unknown): z.output<Schema> =>
    readAnswer('Facebook Scraper3', operation, schema, body);
  return {
    async run({ operation, input, signal }) {
      if (operation.name === 'facebook_post') {
        const id = postLookupId(String(input.url));
        if (!id) throw unsupportedUrl();
        return postOf(read(operation.name, postAnswer(), await get('/post', { post_id: id }, signal)).results);
      }
      if (operation.name === 'facebook_post_comments') {
        const next = typeof input.cursor === 'string' ? COMMENTS_CURSOR.exec(input.cursor) : undefined;
        if (next === null) throw new UpstreamError("this page's cursor is not Facebook Scraper3's", { code: 'unsupported_input' });
        // `/post/comments` takes the post's number: a pfbid token is looked up first (the first page only).
        const lookup = postLookupId(String(input.url));
        const postId =
          next?.[1] ??
          (lookup && /^[0-9]+$/.test(lookup)
            ? lookup
            : lookup && str(read(operation.name, postAnswer(), await get('/post', { post_id: lookup }, signal)).results.post_id));
        if (!postId) throw unsupportedUrl();
        const found = read(operation.name, commentsAnswer(), await get('/post/comments', { post_id: postId, cursor: next?.[2] }, signal));
        return page(found.results.map(commentOf(postId)), found.cursor ? `${postId}:${found.cursor}` : null);
      }
      if (operation.name !== 'facebook_search') throw new UpstreamError(`operation ${operation.name} is not served by Facebook Scraper3`);
      if (input.type === 'videos') {
        const found = read(
          operation.name,
          videosAnswer(),
          await get('/search/videos', { query: input.query, cursor: input.cursor }, signal),
        );
        return page(found.results.map(videoOf), found.cursor);
      }
      const found = read(operation.name, postsAnswer(), await get('/search/posts', { query: input.query, cursor: input.cursor }, signal));
      return page(found.results.map(postOf), found.cursor);
    },
  };
}
