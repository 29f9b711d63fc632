/**
 * LinkedIn on ScrapeCreators: what a logged-out visitor sees, by URL. No ids for people (the
 * URL's public identifier stands in), no follower count for companies, company posts paged by
 * page number (social-operations.md, "LinkedIn").
 */
import * as z from 'zod/mini';
import { type Mappings, mapping } from './mapping.ts';
import { author, media, page, post, profile } from './output.ts';
import { given, int, str } from './read.ts';
import { count, id, list, loose, object, text, time } from './vendor-shapes.ts';

/** The public identifier in a LinkedIn URL: `satyanadella` in linkedin.com/in/satyanadella. */
const slugOf = (url: string) => new URL(url).pathname.split('/').filter(Boolean)[1] ?? null;
/** The activity id in a post URL (…-activity-7123456789012345678-abcd). */
const activityOf = (url: string) => /activity[-:]([0-9]+)/.exec(url)?.[1];
/** LinkedIn shows 7 pages of a company's posts at most; our cursor is the next page number. */
const LAST_PAGE = 7;
const pageOf = (cursor: unknown) => (cursor ? Number(cursor) || 1 : 1);

export const linkedin = {
  linkedin_profile: mapping({
    path: '/v1/linkedin/profile',
    params: (input) => ({ url: given(input.url) }),
    response: () => z.object({ id: id(), name: text(), about: text(), image: text(), location: text(), followers: count() }),
    translate: (body, input) => {
      const url = String(input.url);
      return profile('linkedin', {
        // SC has no id field for a profile: the public identifier in the URL is the stable one.
        id: body.id ?? slugOf(url),
        username: slugOf(url),
        display_name: body.name,
        bio: body.about,
        avatar_url: body.image,
        url,
        location: body.location,
        followers: body.followers,
        following: null,
      });
    },
  }),
  linkedin_company: mapping({
    path: '/v1/linkedin/company',
    params: (input) => ({ url: given(input.url) }),
    response: () =>
      z.object({
        id: id(),
        name: text(),
        slogan: text(),
        description: text(),
        website: text(),
        industry: text(),
        size: text(),
        employeeCount: count(),
        headquarters: text(),
        founded: count(),
        logo: text(),
        specialties: list(loose()),
      }),
    translate: (body, input) => ({
      network: 'linkedin',
      id: str(body.id) ?? slugOf(String(input.url)) ?? '',
      name: str(body.name) ?? '',
      url: input.url,
      tagline: str(body.slogan),
      description: str(body.description),
      website: str(body.website),
      industry: str(body.industry),
      size: str(body.size),
      employee_count: int(body.employeeCount),
      followers: null,
      headquarters: str(body.headquarters),
      founded_year: typeof body.founded === 'number' ? body.founded : int(body.founded),
      logo_url: str(body.logo),
      specialties: (body.specialties ?? []).filter((specialty) => typeof specialty === 'string'),
    }),
  }),
  linkedin_company_posts: mapping({
    path: '/v1/linkedin/company/posts',
    params: (input) => ({ url: given(input.url), page: pageOf(input.cursor) }),
    response: () => z.object({ posts: list(z.object({ id: id(), url: text(), text: text(), datePublished: time() })) }),
    translate: (body, input) => {
      const current = pageOf(input.cursor);
      const items = (body.posts ?? []).map((p) =>
        post({ network: 'linkedin', id: p.id ?? p.url, url: p.url, type: 'text', text: p.text, created_at: p.datePublished }),
      );
      return page(items, current < LAST_PAGE && items.length > 0 ? String(current + 1) : null);
    },
  }),
  linkedin_post: mapping({
    path: '/v1/linkedin/post',
    params: (input) => ({ url: given(input.url) }),
    response: () =>
      z.object({
        url: text(),
        name: text(),
        headline: text(),
        description: text(),
        datePublished: time(),
        likeCount: count(),
        commentCount: count(),
        author: object({ name: text(), url: text() }),
      }),
    translate: (body, input) => {
      const url = String(input.url);
      return post({
        network: 'linkedin',
        id: activityOf(url) ?? url,
        url: body.url ?? url,
        type: body.headline ? 'article' : 'text',
        author: author({ display_name: body.author?.name, url: body.author?.url }),
        title: body.name ?? body.headline,
        text: body.description,
        created_at: body.datePublished,
        metrics: { likes: int(body.likeCount), comments: int(body.commentCount) },
      });
    },
  }),
  linkedin_search_posts: mapping({
    path: '/v1/linkedin/search/posts',
    params: (input) => ({
      query: given(input.query),
      date_posted: input.date_posted === 'any-time' ? undefined : given(input.date_posted),
      cursor: given(input.cursor),
    }),
    response: () =>
      z.object({
        posts: list(
          z.object({
            url: text(),
            description: text(),
            datePublished: time(),
            author: object({ name: text(), url: text(), image: text() }),
            images: list(loose()),
            likeCount: count(),
            commentCount: count(),
          }),
        ),
        cursor: id(),
      }),
    translate: (body) =>
      page(
        (body.posts ?? []).map((p) =>
          post({
            network: 'linkedin',
            id: activityOf(p.url ?? '') ?? p.url,
            url: p.url,
            type: 'text',
            author: author({ display_name: p.author?.name, url: p.author?.url, avatar_url: p.author?.image }),
            text: p.description,
            created_at: p.datePublished,
            media: (p.images ?? []).map((image) => media('image', image)),
            metrics: { likes: int(p.likeCount), comments: int(p.commentCount) },
          }),
        ),
        body.cursor,
      ),
  }),
} satisfies Mappings;
