import * as z from 'zod/mini';
import { company, cursor, lazy, operation, page, post, profile, query, urlOn } from './shapes.ts';

const profileUrl = lazy(() => urlOn(['linkedin.com/in'], 'a linkedin.com/in/ profile URL, e.g. https://www.linkedin.com/in/satyanadella'));
const companyUrl = lazy(() =>
  urlOn(['linkedin.com/company'], 'a linkedin.com/company/ URL, e.g. https://www.linkedin.com/company/microsoft'),
);
const postUrl = lazy(() => urlOn(['linkedin.com'], 'a linkedin.com post or article URL, e.g. https://www.linkedin.com/posts/…'));
const text = (what: string) => z.string().check(z.trim(), z.minLength(1), z.maxLength(200), z.describe(what));

export const linkedin = [
  operation({
    name: 'linkedin_profile',
    network: 'linkedin',
    description: 'Get a LinkedIn member profile by URL as a logged-out visitor sees it: headline, location, followers.',
    cost: 1,
    input: () => z.strictObject({ url: profileUrl() }),
    output: profile,
  }),
  operation({
    name: 'linkedin_company',
    network: 'linkedin',
    description: 'Get a LinkedIn company page by URL: description, industry, size, headquarters, website.',
    cost: 1,
    input: () => z.strictObject({ url: companyUrl() }),
    output: company,
  }),
  operation({
    name: 'linkedin_user_posts',
    network: 'linkedin',
    description: 'List the recent posts of a LinkedIn member, newest first, a page at a time.',
    cost: 1,
    input: () => z.strictObject({ url: profileUrl(), cursor: z.optional(cursor()) }),
    output: () => page(post()),
  }),
  operation({
    name: 'linkedin_company_posts',
    network: 'linkedin',
    description: 'List the recent posts of a LinkedIn company page (LinkedIn shows at most 7 pages).',
    cost: 1,
    input: () => z.strictObject({ url: companyUrl(), cursor: z.optional(cursor()) }),
    output: () => page(post()),
  }),
  operation({
    name: 'linkedin_post',
    network: 'linkedin',
    description: 'Get one LinkedIn post or article by URL: text, author, reactions and comment count.',
    cost: 1,
    input: () => z.strictObject({ url: postUrl() }),
    output: post,
  }),
  operation({
    name: 'linkedin_search_people',
    network: 'linkedin',
    description: 'Search LinkedIn members by keywords, optionally narrowed by title, company and location.',
    cost: 3,
    input: () =>
      z.strictObject({
        query: query(),
        title: z.optional(text('current job title contains')),
        company: z.optional(text('current company name')),
        location: z.optional(text('location, e.g. "Berlin" or "United States"')),
        cursor: z.optional(cursor()),
      }),
    output: () => page(profile()),
  }),
  operation({
    name: 'linkedin_search_posts',
    network: 'linkedin',
    description: 'Search public LinkedIn posts by keywords, optionally within a time window.',
    cost: 1,
    input: () =>
      z.strictObject({
        query: query(),
        date_posted: z
          ._default(z.enum(['last-hour', 'last-day', 'last-week', 'last-month', 'last-year', 'any-time']), 'any-time')
          .check(z.describe('only posts published in this window')),
        cursor: z.optional(cursor()),
      }),
    output: () => page(post()),
  }),
];
