/**
 * resolve_mention's parser accepts any string a caller may send: it resolves it or says it
 * names nothing, and never throws (a throw was a 500 for `instagram.com/%.3`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMention } from '../../lib/social/mention.ts';
import { fuzzRuns } from '../support/fuzz.ts';

const HANDLE = /^[\p{L}\p{N}._-]{1,100}$/u;

describe('parseMention', () => {
  it.each([
    ['instagram.com/%.3'],
    ['facebook.com/%'],
    ['https://www.youtube.com/channel/%E0%A4%A'],
    ['linkedin.com/company/%zz'],
    ['reddit.com/r/%'],
    ['x.com/%2F%2F'],
    ['tiktok.com/@%'],
  ])('%s names no account (no match, no throw)', (mention) => {
    expect(parseMention(mention)).toEqual({ match: null, candidates: [] });
  });

  it('decodes a percent-encoded handle that is a handle once decoded', () => {
    expect(parseMention('instagram.com/n%C3%AFke')?.match).toEqual({
      network: 'instagram',
      kind: 'user',
      handle: 'nïke',
      url: 'https://www.instagram.com/nïke/',
    });
  });

  it('never throws, and every reference it returns has a valid handle and an https URL', () => {
    const hosts = ['instagram.com', 'tiktok.com', 'youtube.com', 'x.com', 'facebook.com', 'linkedin.com', 'reddit.com', 'example.com'];
    const segment = fc.oneof(
      fc.string(),
      fc.constantFrom('%', '%.3', '%E0%A4%A', '@', 'groups', 'company', 'in', 'r', 'u', 'channel', 'c'),
    );
    const urlish = fc.tuple(fc.constantFrom('', 'https://', 'http://www.'), fc.constantFrom(...hosts), fc.array(segment, { maxLength: 3 }));
    const mention = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      urlish.map(([scheme, host, parts]) => `${scheme}${host}/${parts.join('/')}`),
    );
    fc.assert(
      fc.property(mention, (text) => {
        const parsed = parseMention(text);
        for (const reference of [parsed.match, ...parsed.candidates]) {
          if (!reference) continue;
          expect(reference.handle).toMatch(HANDLE);
          expect(reference.url.startsWith('https://')).toBe(true);
        }
      }),
      { seed: 20261122, numRuns: fuzzRuns(200) },
    );
  });
});
