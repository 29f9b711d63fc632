/**
 * tiktok_trend_scan on TikHub's TikTok-Ads-API (TikTok Creative Center's boards): one call per
 * board asked for, in parallel, each `GET /api/v1/tiktok/ads/<board>` as TikHub's OpenAPI
 * reference (V5.3.2, github.com/TikHubIO/TikHub-API-Python-SDK spec/openapi.json, tag
 * TikTok-Ads-API) documents it, with an example answer: the envelope's `data` is the Creative
 * Center's own `{code: 0, msg: "OK", data: {…}}`.
 *
 * - hashtag: `get_hashtag_list` (page, limit, period 7|30|120, country_code, sort_by popular,
 *   filter_by new_on_board) → `list[]{hashtag_name, publish_cnt, video_views, rank, …}`;
 * - sound: `get_sound_rank_list` (period, page, limit, rank_type popular, new_on_board,
 *   country_code) → `sound_list[]{title, link, rank, …}`;
 * - creator: `get_creator_list` (page, limit, sort_by follower, creator_country; no period: the
 *   board as it is now) → `creators[]{nick_name, tt_link, follower_cnt, …}`, unranked: rank is
 *   the position;
 * - video: `get_popular_trends` (period 7|30, page, limit, order_by vv, country_code) →
 *   `videos[]{title, item_url, …}`, unranked: rank is the position.
 *
 * Each board's `pagination.has_more` says whether page + 1 exists; the cursor is that page number.
 * `rank_diff` is not mapped to `rank_change`: the reference does not say which `rank_diff_type`
 * means up or down.
 */
import * as z from 'zod/mini';
import { int } from '../scrapecreators/read.ts';
import { id, count as num, text } from '../scrapecreators/vendor-shapes.ts';
import { UpstreamError } from '../types.ts';
import type { TikHubGet, TikHubMapping, TikHubParams } from './mapping.ts';

type Kind = 'hashtag' | 'sound' | 'creator' | 'video';

/** The Creative Center's own envelope inside TikHub's `data`: `code` 0 is success. */
const creativeCenter = <T extends z.ZodMiniType>(inner: T) => z.object({ code: z.number(), msg: text(), data: inner });
const pagination = () => z.nullish(z.object({ has_more: z.nullish(z.boolean()) }));

/** The reference's country lists name the United Kingdom `UK` (get_hashtag_filters' example), not ISO's `GB`. */
const countryCode = (region: unknown) => (region === 'GB' ? 'UK' : String(region));
const days = (period: unknown) => String(period).replace(/d$/, '');

interface Board<Item> {
  path: string;
  params(input: Readonly<Record<string, unknown>>, page: number, limit: number): TikHubParams;
  items(): z.ZodMiniType;
  list(data: unknown): Item[];
  entry(item: Item, position: number): { name: string; url: string | null; rank: number | null; posts: unknown; views: unknown };
}

// Built on a board's first run, as every provider's response shapes are (vendor-shapes.ts says why).
const hashtag = () =>
  z.object({
    hashtag_name: z.string(),
    publish_cnt: num(),
    video_views: num(),
    rank: num(),
  });
const sound = () => z.object({ title: z.string(), link: text(), rank: num() });
const creator = () => z.object({ nick_name: z.string(), tt_link: text() });
const video = () => z.object({ title: text(), item_url: text(), item_id: id() });

const BOARDS: Record<Kind, Board<never>> = {
  hashtag: {
    path: '/api/v1/tiktok/ads/get_hashtag_list',
    params: (input, page, limit) => ({
      page,
      limit,
      period: days(input.period),
      country_code: countryCode(input.region),
      sort_by: 'popular',
      filter_by: input.new_only === true ? 'new_on_board' : undefined,
    }),
    items: () => z.object({ list: z.array(hashtag()), pagination: pagination() }),
    list: (data) => (data as { list: never[] }).list,
    entry: (item: z.output<ReturnType<typeof hashtag>>) => ({
      name: item.hashtag_name,
      url: `https://www.tiktok.com/tag/${encodeURIComponent(item.hashtag_name)}`,
      rank: int(item.rank),
      posts: item.publish_cnt,
      views: item.video_views,
    }),
  },
  sound: {
    path: '/api/v1/tiktok/ads/get_sound_rank_list',
    params: (input, page, limit) => ({
      period: days(input.period),
      page,
      limit,
      rank_type: 'popular',
      new_on_board: input.new_only === true ? 'true' : undefined,
      country_code: countryCode(input.region),
    }),
    items: () => z.object({ sound_list: z.array(sound()), pagination: pagination() }),
    list: (data) => (data as { sound_list: never[] }).sound_list,
    entry: (item: z.output<ReturnType<typeof sound>>) => ({
      name: item.title,
      url: item.link ?? null,
      rank: int(item.rank),
      posts: null,
      views: null,
    }),
  },
  creator: {
    path: '/api/v1/tiktok/ads/get_creator_list',
    params: (input, page, limit) => ({ page, limit, sort_by: 'follower', creator_country: countryCode(input.region) }),
    items: () => z.object({ creators: z.array(creator()), pagination: pagination() }),
    list: (data) => (data as { creators: never[] }).creators,
    entry: (item: z.output<ReturnType<typeof creator>>, position) => ({
      name: item.nick_name,
      url: item.tt_link ?? null,
      rank: position,
      posts: null,
      views: null,
    }),
  },
  video: {
    path: '/api/v1/tiktok/ads/get_popular_trends',
    params: (input, page, limit) => ({ period: days(input.period), page, limit, order_by: 'vv', country_code: countryCode(input.region) }),
    items: () => z.object({ videos: z.array(video()), pagination: pagination() }),
    list: (data) => (data as { videos: never[] }).videos,
    entry: (item: z.output<ReturnType<typeof video>>, position) => ({
      name: item.title || String(item.item_id ?? ''),
      url: item.item_url ?? null,
      rank: position,
      posts: null,
      views: null,
    }),
  },
};

const pageOf = (cursor: unknown): number | null => {
  if (cursor === undefined) return 1;
  return /^[1-9][0-9]{0,3}$/.test(String(cursor)) ? Number(cursor) : null;
};

const kindsOf = (input: Readonly<Record<string, unknown>>) => [...new Set(input.kinds as Kind[])];

export const tiktok: Readonly<Record<string, TikHubMapping>> = {
  tiktok_trend_scan: {
    paths: Object.values(BOARDS).map((board) => board.path),
    unsupported: (input) => {
      const kinds = kindsOf(input);
      if (pageOf(input.cursor) === null) return 'the cursor is not a TikHub trend page';
      if (input.new_only === true && kinds.some((kind) => kind === 'creator' || kind === 'video'))
        return 'TikHub filters new entries on the hashtag and sound boards only';
      if (input.period === '120d' && kinds.includes('video')) return "TikHub's popular videos cover 7 or 30 days";
      return undefined;
    },
    async run(get: TikHubGet, input) {
      const kinds = kindsOf(input);
      const page = pageOf(input.cursor) ?? 1;
      const wanted = Number(input.count);
      // Each board's share of `count`, so that one page of each fits in it and none is skipped between pages.
      const limit = Math.max(1, Math.floor(wanted / kinds.length));
      const boards = await Promise.all(
        kinds.map(async (kind) => {
          const board = BOARDS[kind];
          const answer = await get(board.path, board.params(input, page, limit), creativeCenter(board.items()));
          if (answer.code !== 0) throw new UpstreamError(`TikHub's ${kind} board answered code ${answer.code}: ${answer.msg ?? ''}`);
          const data = answer.data as { pagination?: { has_more?: boolean | null } | null };
          const entries = board.list(data).map((item, index) => {
            const position = (page - 1) * limit + index + 1;
            const entry = board.entry(item, position);
            return {
              network: 'tiktok',
              kind,
              name: entry.name,
              url: entry.url,
              rank: entry.rank !== null && entry.rank >= 1 ? entry.rank : position,
              rank_change: null,
              is_new: input.new_only === true ? true : null,
              post_count: int(entry.posts),
              view_count: int(entry.views),
            };
          });
          return { entries, hasMore: data.pagination?.has_more === true };
        }),
      );
      // The boards interleaved by rank (each board's order kept), as one ranked scan.
      const items = boards
        .flatMap((board, at) => board.entries.map((entry, index) => ({ entry, at, index })))
        .sort((a, b) => a.entry.rank - b.entry.rank || a.at - b.at || a.index - b.index)
        .slice(0, wanted)
        .map(({ entry }) => entry);
      const hasMore = boards.some((board) => board.hasMore);
      return { items, next_cursor: hasMore ? String(page + 1) : null, has_more: hasMore };
    },
  },
};
