/**
 * Errors that say what to fix: an unknown operation named (with the closest real name), an
 * operation the provider lacks or the organization turned off told apart, and validation
 * messages in plain words instead of zod's defaults. Each message pinned here.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import * as zm from 'zod/mini';
import { handler } from '../functions/run-social-operation.ts';
import { issuesOf } from '../lib/errors.ts';
import { OPERATION_NAMES } from '../lib/social/catalog/index.ts';
import { closestName, editDistance } from '../lib/social/closest-name.ts';
import { workspace } from './support/fixtures.ts';
import { call, withoutRequestId } from './support/http.ts';
import { runUrl } from './support/social.ts';
import { tokenFor } from './support/tokens.ts';

const { orgId, users } = await workspace({ credits: 50, networks: ['instagram', 'tiktok', 'x'] });
const run = (operation: string, body: unknown = {}) =>
  call(handler, { method: 'POST', url: runUrl(operation, orgId), token: tokenFor(users.editor), body });

describe('an unknown operation', () => {
  const LISTS = 'GET /social/operations lists the operations this organization can run';

  it.each([
    ['instagram_profil', 'instagram_profile'],
    ['Instagram_Profile', 'instagram_profile'],
    ['instagram-profile', 'instagram_profile'],
    ['tiktok_proifle', 'tiktok_profile'],
    ['x_serch', 'x_search'],
    ['youtube_vidoes', 'youtube_video'],
  ])('%s → 404 suggesting %s', async (typo, suggestion) => {
    const answer = await run(typo);
    expect(answer.status).toBe(404);
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'not_found',
      message: `no operation is named "${typo}"; did you mean ${suggestion}? ${LISTS}`,
    });
  });

  it.each(['myspace_profile', 'list_everything', 'delete_everything'])('%s → 404 with no suggestion', async (name) => {
    const answer = await run(name);
    expect(withoutRequestId(answer.body)).toEqual({ code: 'not_found', message: `no operation is named "${name}"; ${LISTS}` });
  });

  it('cuts a long name in the message', async () => {
    const answer = await run('a'.repeat(100));
    expect(answer.body.message).toBe(`no operation is named "${'a'.repeat(64)}…"; ${LISTS}`);
  });

  it('measures typos as edits, a swap of neighbours being one', () => {
    expect(editDistance('instagram_profil', 'instagram_profile')).toBe(1);
    expect(editDistance('tiktok_proifle', 'tiktok_profile')).toBe(1);
    expect(editDistance('x_post', 'x_trends')).toBe(6);
    expect(closestName('x_pots', OPERATION_NAMES)).toBe('x_post');
    expect(closestName('xx', OPERATION_NAMES)).toBeUndefined();
  });
});

describe('an operation that cannot run here', () => {
  it('says which network the organization turned off', async () => {
    const answer = await run('youtube_video', { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' });
    expect(answer.status).toBe(403);
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'operation_not_enabled',
      message: 'operation youtube_video is not enabled for this organization: its youtube network is turned off',
    });
  });
  // The provider's side ("not served by ScrapeCreators, this deployment's social data provider"): test/social/http-provider.test.ts.
});

describe('validation messages', () => {
  it.each([
    ['a number for a string', { handle: 42 }, ['body', 'handle'], 'invalid_type', 'must be a string, not a number'],
    [
      'a handle with spaces',
      { handle: 'not a handle!' },
      ['body', 'handle'],
      'invalid_format',
      'must be a handle on TikTok (letters, digits, ".", "_" or "-", with or without "@")',
    ],
    ['an unknown field', { handle: 'nasa', handel: 'typo' }, ['body'], 'unrecognized_keys', 'has an unknown field "handel"'],
    ['an array for the body', [], ['body'], 'invalid_type', 'must be an object, not an array'],
  ])('tiktok_profile with %s', async (_case, body, path, code, message) => {
    const answer = await run('tiktok_profile', body);
    expect(answer.status).toBe(400);
    expect(answer.body.data.issues).toEqual([{ path, code, message }]);
  });

  it.each([
    ['an empty string', '', 'too_small', 'must not be empty'],
    ['a string too long', 'a'.repeat(101), 'too_big', 'must be at most 100 characters long'],
  ])('tiktok_profile with %s: the bound, then the pattern', async (_case, handle, code, message) => {
    const answer = await run('tiktok_profile', { handle });
    expect(answer.body.data.issues).toEqual([
      { path: ['body', 'handle'], code, message },
      { path: ['body', 'handle'], code: 'invalid_format', message: expect.stringMatching(/^must be a handle on TikTok/) },
    ]);
  });

  it.each([
    ['a count too high', { query: 'nasa', count: 101 }, ['body', 'count'], 'too_big', 'must be at most 100'],
    ['a count of zero', { query: 'nasa', count: 0 }, ['body', 'count'], 'too_small', 'must be at least 1'],
    ['a fractional count', { query: 'nasa', count: 1.5 }, ['body', 'count'], 'invalid_type', 'must be an integer'],
    ['a count as text', { query: 'nasa', count: '5' }, ['body', 'count'], 'invalid_type', 'must be a number, not a string'],
  ])('x_search with %s', async (_case, body, path, code, message) => {
    const answer = await run('x_search', body);
    expect(answer.body.data.issues).toEqual([{ path, code, message }]);
  });

  it.each([
    ['a value outside an enum', z.enum(['a', 'b']), 'c', 'must be one of "a", "b"'],
    ['a literal', z.literal('on'), 'off', 'must be "on"'],
    ['a boolean', z.boolean(), 'yes', 'must be true or false, not a string'],
    ['a URL', z.url(), 'nope', 'must be a URL'],
    ['a UUID', z.uuid(), 'nope', 'must be a UUID'],
    ['a date-time', z.iso.datetime(), 'yesterday', 'must be an ISO 8601 date-time in UTC, e.g. 2025-01-31T12:00:00Z'],
    ['a pattern without a message', z.string().regex(/^a+$/), 'b', 'is not in the expected format'],
    ['a prefix', z.string().startsWith('org_'), 'acme', 'must start with "org_"'],
    ['an exclusive minimum', z.number().gt(0), 0, 'must be greater than 0'],
    ['a multiple', z.number().multipleOf(5), 3, 'must be a multiple of 5'],
    ['an array too short', z.array(z.string()).min(2), ['a'], 'must have at least 2 items'],
    ['an array too long', z.array(z.string()).max(1), ['a', 'b'], 'must have at most 1 item'],
    ['a string too short', z.string().min(3), 'ab', 'must be at least 3 characters long'],
    ['a union', z.union([z.string(), z.number()]), true, 'matches none of the accepted forms'],
    ['a zod/mini string', zm.string(), 5, 'must be a string, not a number'],
    ['a zod/mini minimum', zm.string().check(zm.minLength(2)), 'a', 'must be at least 2 characters long'],
    ['a message the schema states', z.string().regex(/^a$/, 'must be the letter a'), 'b', 'must be the letter a'],
  ])('%s', (_case, schema, input, message) => {
    const result = z.safeParse(schema, input);
    expect(result.success).toBe(false);
    expect(issuesOf('body', result.error!, input).map((issue) => issue.message)).toEqual([message]);
  });

  it('names at most five unknown fields, and counts the rest', () => {
    const input = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, i]));
    const result = z.safeParse(z.strictObject({}), input);
    expect(issuesOf('body', result.error!, input)).toEqual([
      { path: ['body'], code: 'unrecognized_keys', message: 'has unknown fields "k0", "k1", "k2", "k3", "k4" and 3 more' },
    ]);
  });
});
