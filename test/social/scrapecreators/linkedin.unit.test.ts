/**
 * LinkedIn on ScrapeCreators: each operation's query and the exact translation of a vendor-shaped
 * payload (test/support/scrapecreators/linkedin.ts), which passes the operation's output schema.
 */
import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from '../../../lib/social/catalog/names.ts';
import { linkedin } from '../../../lib/social/providers/scrapecreators/linkedin.ts';
import { SCRAPECREATORS_OPERATIONS } from '../../../lib/social/providers/scrapecreators/operations.ts';
import { variants } from '../../support/scrapecreators/linkedin.ts';
import { runMapping } from '../../support/scrapecreators/run.ts';

describe('LinkedIn on ScrapeCreators', () => {
  it('maps exactly the LinkedIn operations ScrapeCreators serves', () => {
    expect(Object.keys(linkedin)).toEqual(
      OPERATION_NAMES.filter((name) => name.startsWith('linkedin_') && SCRAPECREATORS_OPERATIONS.has(name)),
    );
  });

  it('linkedin_profile: id and username from the profile URL', () => {
    const { path, params, output, issues } = runMapping('linkedin_profile');
    expect({ path, params }).toEqual({ path: '/v1/linkedin/profile', params: { url: 'https://www.linkedin.com/in/satyanadella' } });
    expect(output).toEqual({
      network: 'linkedin',
      id: 'satyanadella',
      username: 'satyanadella',
      display_name: 'Satya Nadella',
      bio: 'Chairman and CEO',
      avatar_url: 'https://media.licdn.com/s.jpg',
      url: 'https://www.linkedin.com/in/satyanadella',
      external_url: null,
      verified: null,
      private: null,
      category: null,
      location: 'Redmond, Washington',
      created_at: null,
      followers: 11000000,
      following: null,
      posts_count: null,
      likes_count: null,
    });
    expect(issues).toEqual([]);
  });

  it('linkedin_company: a company page', () => {
    const { path, params, output, issues } = runMapping('linkedin_company');
    expect({ path, params }).toEqual({ path: '/v1/linkedin/company', params: { url: 'https://www.linkedin.com/company/microsoft' } });
    expect(output).toEqual({
      network: 'linkedin',
      id: '1035',
      name: 'Microsoft',
      url: 'https://www.linkedin.com/company/microsoft',
      tagline: 'Empower every person',
      description: 'Software',
      website: 'https://microsoft.com',
      industry: 'Software Development',
      size: '10,001+ employees',
      employee_count: 228000,
      followers: null,
      headquarters: 'Redmond, Washington',
      founded_year: 1975,
      logo_url: 'https://media.licdn.com/m.png',
      specialties: ['Cloud', 'AI'],
    });
    expect(issues).toEqual([]);
  });

  /** What the stub's company post translates to (one per page). */
  const companyPost = {
    network: 'linkedin',
    id: '7123456789012345678',
    url: 'https://www.linkedin.com/posts/microsoft_x',
    type: 'text',
    author: { id: null, username: null, display_name: null, avatar_url: null, url: null, verified: null },
    title: null,
    text: 'Build 2024 #AI',
    created_at: '2024-05-01T10:00:00.000Z',
    media: [],
    metrics: { views: null, likes: null, comments: null, shares: null, saves: null, quotes: null },
    hashtags: ['AI'],
    mentions: [],
    music: null,
  };

  it('linkedin_company_posts: our cursor is the next page number', () => {
    const { path, params, output, issues } = runMapping('linkedin_company_posts', {
      input: { url: 'https://www.linkedin.com/company/microsoft', cursor: '2' },
    });
    expect({ path, params }).toEqual({
      path: '/v1/linkedin/company/posts',
      params: { url: 'https://www.linkedin.com/company/microsoft', page: 2 },
    });
    expect(output).toEqual({
      items: [companyPost],
      next_cursor: '3',
      has_more: true,
    });
    expect(issues).toEqual([]);
  });

  it('linkedin_company_posts: no page after the 7th', () => {
    const { path, params, output, issues } = runMapping('linkedin_company_posts', {
      input: { url: 'https://www.linkedin.com/company/microsoft', cursor: '7' },
    });
    expect({ path, params }).toEqual({
      path: '/v1/linkedin/company/posts',
      params: { url: 'https://www.linkedin.com/company/microsoft', page: 7 },
    });
    expect(output).toEqual({
      items: [companyPost],
      next_cursor: null,
      has_more: false,
    });
    expect(issues).toEqual([]);
  });

  it('linkedin_post: the post id is the activity id in its URL', () => {
    const { path, params, output, issues } = runMapping('linkedin_post');
    expect({ path, params }).toEqual({
      path: '/v1/linkedin/post',
      params: { url: 'https://www.linkedin.com/posts/satyanadella_ai-activity-7123456789012345678-abcd' },
    });
    expect(output).toEqual({
      network: 'linkedin',
      id: '7123456789012345678',
      url: 'https://www.linkedin.com/posts/satyanadella_ai-activity-7123456789012345678-abcd',
      type: 'text',
      author: {
        id: null,
        username: null,
        display_name: 'Satya Nadella',
        avatar_url: null,
        url: 'https://www.linkedin.com/in/satyanadella',
        verified: null,
      },
      title: 'AI everywhere',
      text: 'Excited to share…',
      created_at: '2024-05-01T10:00:00.000Z',
      media: [],
      metrics: { views: null, likes: 9000, comments: 400, shares: null, saves: null, quotes: null },
      hashtags: [],
      mentions: [],
      music: null,
    });
    expect(issues).toEqual([]);
  });

  it('linkedin_post: an article, its headline the title', () => {
    const { path, params, output, issues } = runMapping('linkedin_post', {
      input: { url: 'https://www.linkedin.com/pulse/ai-age-satya-nadella' },
      payload: variants.article,
    });
    expect({ path, params }).toEqual({ path: '/v1/linkedin/post', params: { url: 'https://www.linkedin.com/pulse/ai-age-satya-nadella' } });
    expect(output).toEqual({
      network: 'linkedin',
      id: 'https://www.linkedin.com/pulse/ai-age-satya-nadella',
      url: 'https://www.linkedin.com/pulse/ai-age-satya-nadella',
      type: 'article',
      author: {
        id: null,
        username: null,
        display_name: 'Satya Nadella',
        avatar_url: null,
        url: 'https://www.linkedin.com/in/satyanadella',
        verified: null,
      },
      title: 'The age of AI',
      text: 'Long read',
      created_at: '2024-05-03T10:00:00.000Z',
      media: [],
      metrics: { views: null, likes: null, comments: null, shares: null, saves: null, quotes: null },
      hashtags: [],
      mentions: [],
      music: null,
    });
    expect(issues).toEqual([]);
  });

  it('linkedin_search_posts: date_posted and cursor in', () => {
    const { path, params, output, issues } = runMapping('linkedin_search_posts', {
      input: { query: 'serverless', date_posted: 'last-week', cursor: '1' },
    });
    expect({ path, params }).toEqual({
      path: '/v1/linkedin/search/posts',
      params: { query: 'serverless', date_posted: 'last-week', cursor: '1' },
    });
    expect(output).toEqual({
      items: [
        {
          network: 'linkedin',
          id: '7123456789012345679',
          url: 'https://www.linkedin.com/posts/x_activity-7123456789012345679-ab',
          type: 'text',
          author: { id: null, username: null, display_name: 'Ann', avatar_url: null, url: null, verified: null },
          title: null,
          text: 'Serverless tips',
          created_at: '2024-05-02T10:00:00.000Z',
          media: [],
          metrics: { views: null, likes: 10, comments: 2, shares: null, saves: null, quotes: null },
          hashtags: [],
          mentions: [],
          music: null,
        },
      ],
      next_cursor: '2',
      has_more: true,
    });
    expect(issues).toEqual([]);
  });
});
