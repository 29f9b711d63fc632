/**
 * Whose a page's cursor is (lib/social/provider-cursor.ts): tagged with the provider that answered
 * when its operation has several, sent back to that provider alone and untagged.
 */
import { describe, expect, it } from 'vitest';
import { providersForCursor, withCursorOwner, withVendorCursor } from '../../lib/social/provider-cursor.ts';

const TWO = [{ name: 'http' }, { name: 'facebook_scraper3' }];

describe('provider cursors', () => {
  it("tag a page's next_cursor with the provider that answered, when the operation has several providers", () => {
    const page = { items: [], next_cursor: '123:abc', has_more: true };
    expect(withCursorOwner(page, 'facebook_scraper3', TWO)).toEqual({ ...page, next_cursor: '~facebook_scraper3~123:abc' });
    // One provider: cursors stay the vendor's, as they always were.
    expect(withCursorOwner(page, 'http', [{ name: 'http' }])).toBe(page);
    // The last page, or an answer that is no page: unchanged.
    expect(withCursorOwner({ items: [], next_cursor: null, has_more: false }, 'http', TWO)).toEqual({
      items: [],
      next_cursor: null,
      has_more: false,
    });
    expect(withCursorOwner({ id: '1' }, 'http', TWO)).toEqual({ id: '1' });
  });

  it('send a tagged cursor back to its provider alone, untagged', () => {
    const input = { url: 'u', cursor: '~facebook_scraper3~123:abc' };
    expect(providersForCursor(TWO, input)).toEqual([{ name: 'facebook_scraper3' }]);
    expect(withVendorCursor(input, TWO)).toEqual({ url: 'u', cursor: '123:abc' });
  });

  it.each([
    ['no cursor', { url: 'u' }],
    ['a cursor of no tag (issued while the operation had one provider)', { url: 'u', cursor: 'QVFIUjNhbm90aGVy' }],
    ["a tag of no provider of this operation's", { url: 'u', cursor: '~tikhub~abc' }],
    ['a tag with nothing after it', { url: 'u', cursor: '~http~' }],
    ['a vendor cursor that starts with ~', { url: 'u', cursor: '~abc' }],
  ])('leave %s to every provider, as sent', (_case, input) => {
    expect(providersForCursor(TWO, input)).toEqual(TWO);
    expect(withVendorCursor(input, TWO)).toBe(input);
  });
});
