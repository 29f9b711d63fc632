/**
 * Reddit on ScrapeCreators: Reddit's own "t3" posts, and comments nested as Reddit nests them
 * (social-operations.md, "Reddit").
 */
import * as z from 'zod/mini';
import { type Mappings, mapping, type Vendor } from './mapping.ts';
import { author, comment, media, page, post } from './output.ts';
import { given, int, str } from './read.ts';
import { count, flag, id, list, object, text, time } from './vendor-shapes.ts';

// ------------------------------------------------------------------ the vendor's shapes

const t3 = () =>
  z.object({
    id: id(),
    permalink: text(),
    url: text(),
    is_video: flag(),
    is_self: flag(),
    author: text(),
    author_fullname: text(),
    title: text(),
    selftext: text(),
    created_utc: time(),
    created_at_iso: time(),
    thumbnail: text(),
    score: count(),
    ups: count(),
    num_comments: count(),
  });

/**
 * A comment, or Reddit's `{kind, data}` wrapper around one (kind "more" is a "load more" stub).
 * Replies nest as a listing (`{data: {children}}`), as `{items}`, as a plain array, or as ""
 * (Reddit's "no replies").
 */
interface Comment {
  kind?: string | null | undefined;
  data?: Comment | null | undefined;
  id?: string | number | null | undefined;
  author?: string | null | undefined;
  author_fullname?: string | null | undefined;
  body?: string | null | undefined;
  created_utc?: string | number | null | undefined;
  created_at_iso?: string | number | null | undefined;
  parent_id?: string | null | undefined;
  score?: string | number | null | undefined;
  ups?: string | number | null | undefined;
  replies?: string | Comment[] | { data?: { children?: Comment[] | null } | null; items?: Comment[] | null } | null | undefined;
}
let commentSchema: z.ZodMiniType<Comment> | undefined;
/** Built once, on first use: it refers to itself. */
const commentShape = (): z.ZodMiniType<Comment> =>
  (commentSchema ??= z.object({
    kind: text(),
    get data() {
      return z.nullish(commentShape());
    },
    id: id(),
    author: text(),
    author_fullname: text(),
    body: text(),
    created_utc: time(),
    created_at_iso: time(),
    parent_id: text(),
    score: count(),
    ups: count(),
    get replies() {
      const comments = list(commentShape());
      return z.nullish(z.union([z.string(), z.array(commentShape()), z.object({ data: object({ children: comments }), items: comments })]));
    },
  }));

// ------------------------------------------------------------------ translation

const profileUrl = (name: string | null | undefined) => (name ? `https://www.reddit.com/user/${name}` : null);

const redditPost = (p: Vendor<typeof t3>) =>
  post({
    network: 'reddit',
    id: p.id,
    url: p.permalink ? `https://www.reddit.com${p.permalink}` : p.url,
    type: p.is_video ? 'video' : p.is_self === false && p.url ? 'link' : 'text',
    author: author({ id: p.author_fullname, username: p.author, url: profileUrl(p.author) }),
    title: p.title,
    text: p.selftext,
    created_at: p.created_at_iso ?? p.created_utc,
    media: typeof p.thumbnail === 'string' && p.thumbnail.startsWith('http') ? [media('image', p.thumbnail)] : [],
    metrics: { likes: int(p.score ?? p.ups), comments: int(p.num_comments) },
  });

const repliesOf = (replies: Comment['replies']): Comment[] =>
  typeof replies === 'string' || !replies ? [] : Array.isArray(replies) ? replies : (replies.data?.children ?? replies.items ?? []);

/** Comments come nested (replies.data.children); flattened here, each with its parent_id. */
function flattenComments(list: Comment[], postId: string | null, out: unknown[] = []): unknown[] {
  for (const entry of list) {
    const c = entry.data ?? entry;
    if (entry.kind === 'more' || c.body === undefined) continue;
    out.push(
      comment('reddit', {
        id: c.id,
        post_id: postId,
        parent_id: typeof c.parent_id === 'string' && c.parent_id.startsWith('t1_') ? c.parent_id.slice(3) : null,
        text: c.body,
        created_at: c.created_at_iso ?? c.created_utc,
        likes: c.score ?? c.ups,
        reply_count: null,
        author: author({ id: c.author_fullname, username: c.author, url: profileUrl(c.author) }),
      }),
    );
    flattenComments(repliesOf(c.replies), postId, out);
  }
  return out;
}

/** A search's or a subreddit's answer: a page of posts, `after` the cursor of the next. */
const postsPage = {
  response: () => z.object({ posts: list(t3()), after: id() }),
  translate: (body: { posts?: Vendor<typeof t3>[] | null; after?: string | number | null }) =>
    page((body.posts ?? []).map(redditPost), body.after),
};

const subredditName = (name: unknown) => String(name).replace(/^r\//, '');
/** Reddit has no "past hour" on SC: the past day is the closest wider window. */
const timeframe = (value: unknown) => (value === 'hour' ? 'day' : given(value));

export const reddit = {
  reddit_search: mapping({
    path: '/v1/reddit/search',
    params: (input) => ({
      query: input.subreddit ? `${given(input.query)} subreddit:${subredditName(input.subreddit)}` : given(input.query),
      sort: input.sort === 'comments' ? 'comment_count' : given(input.sort),
      timeframe: timeframe(input.timeframe),
      after: given(input.cursor),
    }),
    ...postsPage,
  }),
  reddit_subreddit_posts: mapping({
    path: '/v1/reddit/subreddit',
    params: (input) => ({
      subreddit: subredditName(input.subreddit),
      sort: given(input.sort),
      timeframe: timeframe(input.timeframe),
      after: given(input.cursor),
    }),
    ...postsPage,
  }),
  reddit_post: mapping({
    path: '/v1/reddit/post',
    params: (input) => ({ url: given(input.url) }),
    // The t3 at top level; some answers nest it under `post`.
    response: () => z.extend(t3(), { post: z.nullish(t3()) }),
    translate: (body) => redditPost(body.post ?? body),
  }),
  reddit_post_comments: mapping({
    path: '/v1/reddit/post/comments',
    params: (input) => ({ url: given(input.url), cursor: given(input.cursor) }),
    response: () =>
      z.object({
        post: object({ id: id() }),
        comments: list(commentShape()),
        more: object({ cursor: id(), has_more: flag() }),
      }),
    translate: (body) => page(flattenComments(body.comments ?? [], str(body.post?.id)), body.more?.cursor, body.more?.has_more ?? false),
  }),
} satisfies Mappings;
