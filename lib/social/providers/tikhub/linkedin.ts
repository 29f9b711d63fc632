/**
 * LinkedIn on TikHub's LinkedIn-Web-API, the endpoints and parameters TikHub's OpenAPI reference
 * (V5.3.2, github.com/TikHubIO/TikHub-API-Python-SDK spec/openapi.json, tag LinkedIn-Web-API)
 * documents:
 *
 * - `GET /api/v1/linkedin/web/search_people` (name, title, company, page, and `geocode_location`,
 *   a geo id: a location by name is not taken);
 * - `GET /api/v1/linkedin/web/get_user_profile` (username: the slug of linkedin.com/in/<slug>),
 *   whose answer names the member's `urn`, and `GET /api/v1/linkedin/web/get_user_posts` (urn,
 *   page): the first page costs two calls, the cursor carries the urn so the next do not.
 *
 * The reference documents the profile's fields (id, urn, public_identifier, full_name, headline…)
 * but not the other two answers ("people search results list data", "user posts list data"). They
 * are read in an assumed shape, `data.data[]` of flat snake_case rows as a public TikHub client
 * reads search_people's (`urn`, `full_name`, `title`, `location`, `url`, `avatar[]{url}`); any
 * other shape is refused (failover or refund), never half-read: docs/social-operations.md,
 * "TikHub", lists what to check with a live key.
 */
import * as z from 'zod/mini';
import { author, page, post, profile } from '../scrapecreators/output.ts';
import { int, str } from '../scrapecreators/read.ts';
import { count as num, text } from '../scrapecreators/vendor-shapes.ts';
import { UpstreamError } from '../types.ts';
import { call, type TikHubMapping } from './mapping.ts';

/** The public identifier in a linkedin.com/in/ URL (the catalog's schema checked the host). */
const slugOf = (url: unknown) => new URL(String(url)).pathname.split('/').filter(Boolean)[1] ?? '';

const person = () =>
  z.object({
    urn: z.string(),
    full_name: text(),
    title: text(),
    location: text(),
    url: z.string().check(z.minLength(1)),
    avatar: z.nullish(z.array(z.object({ url: text() }))),
  });
type Person = z.output<ReturnType<typeof person>>;

const postRow = () =>
  z.object({
    urn: z.string(),
    url: text(),
    text: text(),
    posted_at: z.nullish(z.union([z.string(), z.number()])),
    num_likes: num(),
    num_comments: num(),
    num_shares: num(),
  });
type PostRow = z.output<ReturnType<typeof postRow>>;

/** The profile's fields are documented; whether they sit in `data` or `data.data` is not: both are read. */
const memberUrn = () => z.union([z.object({ urn: z.string() }), z.object({ data: z.object({ urn: z.string() }) })]);

/** `2`: the next page of a search; `<urn>|<page>`: of a member's posts. */
const pageOf = (cursor: unknown) => (cursor === undefined ? 1 : /^[1-9][0-9]{0,2}$/.test(String(cursor)) ? Number(cursor) : null);
const POSTS_CURSOR = /^([A-Za-z0-9_-]{1,100})\|([1-9][0-9]{0,2})$/;

const next = (items: unknown[], at: number, cursor: (page: number) => string) => page(items, items.length > 0 ? cursor(at + 1) : null);

export const linkedin: Readonly<Record<string, TikHubMapping>> = {
  linkedin_search_people: call({
    unsupported: (input) => {
      if (input.location !== undefined) return "TikHub's people search takes a geo id, not a location by name";
      return pageOf(input.cursor) === null ? 'the cursor is not a TikHub search page' : undefined;
    },
    path: '/api/v1/linkedin/web/search_people',
    params: (input) => ({
      name: String(input.query),
      title: str(input.title) ?? undefined,
      company: str(input.company) ?? undefined,
      page: pageOf(input.cursor) ?? 1,
    }),
    response: () => z.object({ data: z.array(person()) }),
    translate: (data: { data: Person[] }, input) =>
      next(
        data.data.map((row) =>
          profile('linkedin', {
            id: row.urn,
            username: URL.canParse(row.url) ? slugOf(row.url) || null : null,
            display_name: row.full_name,
            bio: row.title,
            avatar_url: row.avatar?.[0]?.url,
            url: row.url,
            location: row.location,
          }),
        ),
        pageOf(input.cursor) ?? 1,
        String,
      ),
  }),
  linkedin_user_posts: {
    paths: ['/api/v1/linkedin/web/get_user_profile', '/api/v1/linkedin/web/get_user_posts'],
    unsupported: (input) =>
      input.cursor === undefined || POSTS_CURSOR.test(String(input.cursor)) ? undefined : 'the cursor is not a TikHub posts page',
    async run(get, input) {
      const username = slugOf(input.url);
      const [, cursorUrn, cursorPage] = POSTS_CURSOR.exec(String(input.cursor ?? '')) ?? [];
      let urn = cursorUrn;
      if (!urn) {
        const member = await get('/api/v1/linkedin/web/get_user_profile', { username }, memberUrn());
        // get_user_posts' documented example takes the bare id (`ACoAAB…`): a full `urn:li:…:<id>` is cut to it.
        urn = ('urn' in member ? member.urn : member.data.urn).split(':').at(-1) ?? '';
      }
      if (!/^[A-Za-z0-9_-]{1,100}$/.test(urn)) throw new UpstreamError("TikHub's profile answer has no usable urn");
      const at = Number(cursorPage ?? 1);
      const data = await get('/api/v1/linkedin/web/get_user_posts', { urn, page: at }, z.object({ data: z.array(postRow()) }));
      const by = author({ id: urn, username, url: `https://www.linkedin.com/in/${username}` });
      return next(
        data.data.map((row: PostRow) =>
          post({
            network: 'linkedin',
            id: row.urn,
            url: row.url,
            type: 'text',
            author: by,
            text: row.text,
            created_at: row.posted_at,
            metrics: { likes: int(row.num_likes), comments: int(row.num_comments), shares: int(row.num_shares) },
          }),
        ),
        at,
        (nextPage) => `${urn}|${nextPage}`,
      );
    },
  },
};
