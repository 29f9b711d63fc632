/**
 * How a ScrapeCreators answer is read (lib/social/providers/scrapecreators/read-body.ts): checked
 * against the recorded response shape; a value of another type is read as absent, as the
 * untyped translation read it, and listed with its path; a missing required value is refused.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { readBody } from '../../../lib/social/providers/scrapecreators/read-body.ts';
import { FIXTURES } from '../../support/scrapecreators/index.ts';
import { runMapping } from '../../support/scrapecreators/run.ts';

const shape = z.object({
  id: z.string(),
  title: z.nullish(z.string()),
  stats: z.nullish(z.object({ likes: z.nullish(z.number()) })),
  items: z.nullish(z.array(z.object({ n: z.number() }))),
});

describe('reading a vendor body against its recorded shape', () => {
  it('reads a body of the recorded shape as it is, extra fields left out', () => {
    expect(readBody(shape, { id: 'a', title: 't', stats: { likes: 3 }, items: [{ n: 1 }], success: true })).toEqual({
      data: { id: 'a', title: 't', stats: { likes: 3 }, items: [{ n: 1 }] },
      unreadable: [],
    });
  });

  it('reads values of an unexpected type as absent and lists them by path, without changing the body', () => {
    const body = { id: 'a', title: 42, stats: { likes: '3 likes' }, items: [{ n: 1 }, null, { n: 4 }] };
    const copy = structuredClone(body);

    expect(readBody(shape, body)).toEqual({
      data: { id: 'a', stats: {}, items: [{ n: 1 }, { n: 4 }] },
      unreadable: [
        'title: expected string, received number',
        'stats.likes: expected number, received string',
        'items.1: expected object, received null',
      ],
    });
    expect(body).toEqual(copy);
  });

  it.each([
    ['a missing required value', { title: 't' }, 'id: expected string, received undefined'],
    ['a required value of another type, reported as it was', { id: 7 }, 'id: expected string, received number'],
    [
      'a required value of another type in a list item',
      { id: 'a', items: [{ n: 1 }, { n: 'two' }] },
      'items.1.n: expected number, received string',
    ],
    ['a body that is not an object', ['a'], 'body: expected object, received array'],
  ])('refuses %s', (_case, body, message) => {
    expect(() => readBody(shape, body)).toThrow(message);
  });
});

describe('a mapping given a body that is not the recorded shape', () => {
  it('translates the rest when a value has an unexpected type (Instagram followers as text)', () => {
    const payload = structuredClone(FIXTURES['/v1/instagram/profile']!) as { data: { user: Record<string, unknown> } };
    payload.data.user.edge_followed_by = { count: { value: 97000000 } };

    const { output, issues } = runMapping('instagram_profile', { payload });

    expect(output).toMatchObject({ id: '528817151', username: 'nasa', followers: null, following: 80 });
    expect(issues).toEqual([]);
  });

  it.each([
    ['instagram_profile', { data: {} }, 'data.user: expected object, received undefined'],
    ['tiktok_profile', { user: { id: '1', nickname: 'No handle' } }, 'user.uniqueId: expected string, received undefined'],
    ['x_profile', { rest_id: '1', legacy: { name: 'No handle' } }, 'legacy.screen_name: expected string, received undefined'],
    ['facebook_page', { id: '1', url: 42 }, 'url: expected string, received number'],
    ['tiktok_post', { aweme_detail: 'gone' }, 'aweme_detail: expected object, received string'],
  ] as const)('%s refuses %j, naming the path', (operation, payload, message) => {
    expect(() => runMapping(operation, { payload })).toThrow(message);
  });
});
