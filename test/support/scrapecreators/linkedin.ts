/** LinkedIn as ScrapeCreators answers it: one payload per path (without the success envelope). */
import type { Fixtures } from './index.ts';

export const linkedin: Fixtures = {
  '/v1/linkedin/profile': {
    name: 'Satya Nadella',
    image: 'https://media.licdn.com/s.jpg',
    location: 'Redmond, Washington',
    followers: 11000000,
    about: 'Chairman and CEO',
  },
  '/v1/linkedin/company': {
    id: '1035',
    name: 'Microsoft',
    slogan: 'Empower every person',
    description: 'Software',
    website: 'https://microsoft.com',
    industry: 'Software Development',
    size: '10,001+ employees',
    employeeCount: 228000,
    founded: 1975,
    headquarters: 'Redmond, Washington',
    logo: 'https://media.licdn.com/m.png',
    specialties: ['Cloud', 'AI'],
  },
  '/v1/linkedin/company/posts': {
    posts: [
      {
        id: '7123456789012345678',
        url: 'https://www.linkedin.com/posts/microsoft_x',
        datePublished: '2024-05-01T10:00:00.000Z',
        text: 'Build 2024 #AI',
      },
    ],
  },
  '/v1/linkedin/post': {
    url: 'https://www.linkedin.com/posts/satyanadella_ai-activity-7123456789012345678-abcd',
    name: 'AI everywhere',
    description: 'Excited to share…',
    datePublished: '2024-05-01T10:00:00.000Z',
    likeCount: 9000,
    commentCount: 400,
    author: { name: 'Satya Nadella', url: 'https://www.linkedin.com/in/satyanadella' },
  },
  '/v1/linkedin/search/posts': {
    query: 'serverless',
    posts: [
      {
        url: 'https://www.linkedin.com/posts/x_activity-7123456789012345679-ab',
        datePublished: '2024-05-02T10:00:00.000Z',
        description: 'Serverless tips',
        author: { name: 'Ann' },
        likeCount: 10,
        commentCount: 2,
      },
    ],
    cursor: '2',
  },
};

/** Variants for branches the defaults above do not reach. */
export const variants = {
  /** A Pulse article: a headline, no separate title. */
  article: {
    url: 'https://www.linkedin.com/pulse/ai-age-satya-nadella',
    headline: 'The age of AI',
    description: 'Long read',
    datePublished: '2024-05-03T10:00:00.000Z',
    author: { name: 'Satya Nadella', url: 'https://www.linkedin.com/in/satyanadella' },
  },
};
