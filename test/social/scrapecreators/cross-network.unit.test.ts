/**
 * resolve_mention on ScrapeCreators (which profile operation verifies a mention, what its output
 * says of the account) and how a network's mappings are found.
 */
import { describe, expect, it } from 'vitest';
import { parseMention } from '../../../lib/social/mention.ts';
import { mappingFor, verificationFor, verifiedAccount } from '../../../lib/social/providers/scrapecreators/index.ts';

const matchOf = (mention: string) => parseMention(mention).match!;

describe('resolve_mention on ScrapeCreators', () => {
  it.each([
    ['instagram.com/nasa', { operation: 'instagram_profile', input: { handle: 'nasa' } }],
    ['tiktok.com/@nasa', { operation: 'tiktok_profile', input: { handle: 'nasa' } }],
    ['https://x.com/NASA', { operation: 'x_profile', input: { handle: 'nasa' } }],
    ['youtube.com/@NASA', { operation: 'youtube_channel', input: { channel: 'https://www.youtube.com/@nasa' } }],
    ['facebook.com/nasa', { operation: 'facebook_page', input: { url: 'https://www.facebook.com/nasa' } }],
    ['linkedin.com/in/satyanadella', { operation: 'linkedin_profile', input: { url: 'https://www.linkedin.com/in/satyanadella' } }],
    ['linkedin.com/company/microsoft', { operation: 'linkedin_company', input: { url: 'https://www.linkedin.com/company/microsoft' } }],
    ['facebook.com/groups/123456789', null],
    ['r/aws', null],
    ['u/spez', null],
  ])('verifies %s with %j', (mention, verification) => {
    expect(verificationFor(matchOf(mention))).toEqual(verification);
  });

  it.each([
    [
      'a profile',
      { id: '1', display_name: 'NASA', avatar_url: 'https://a/p.jpg', verified: true, private: false },
      { status: 'found', id: '1', display_name: 'NASA', avatar_url: 'https://a/p.jpg', verified: true },
    ],
    [
      'a private profile',
      { id: '2', display_name: null, avatar_url: null, verified: null, private: true },
      { status: 'private', id: '2', display_name: null, avatar_url: null, verified: null },
    ],
    [
      'a company page',
      { id: '1035', name: 'Microsoft', logo_url: 'https://m/l.png' },
      { status: 'found', id: '1035', display_name: 'Microsoft', avatar_url: 'https://m/l.png', verified: null },
    ],
  ])('reads the account from %s', (_case, output, account) => {
    expect(verifiedAccount(output)).toEqual(account);
  });
});

describe('finding an operation’s mapping', () => {
  it('finds a served operation’s mapping', () => {
    expect(mappingFor('reddit_post')?.path).toBe('/v1/reddit/post');
  });

  it.each(['x_search', 'resolve_mention', 'constructor', 'instagram_nothing', ''])('has none for %j', (name) => {
    expect(mappingFor(name)).toBeUndefined();
  });
});
