/**
 * SOCIAL_TEST_FAULTS (lib/social/test-faults.ts): which runs a fault names, and that it is refused
 * without SOCIAL_TEST_MODE=true or when malformed, rather than silently ignored.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { resetTestFaults, testFault } from '../../lib/social/test-faults.ts';

const withFaults = (faults: string, mode = 'true') => {
  Object.assign(process.env, { SOCIAL_TEST_FAULTS: faults, SOCIAL_TEST_MODE: mode });
  resetTestFaults();
};

afterEach(() => {
  delete process.env.SOCIAL_TEST_FAULTS;
  delete process.env.SOCIAL_TEST_MODE;
  resetTestFaults();
});

describe('SOCIAL_TEST_FAULTS', () => {
  it('names a provider of one operation, or of any (*), for every input or the inputs holding a text', () => {
    withFaults('x_profile=http *=tikhub@nasa');

    expect(testFault('x_profile', 'http', { handle: 'esa' })?.name).toBe('http');
    expect(testFault('x_search', 'http', { query: 'esa' })).toBeUndefined();
    expect(testFault('x_search', 'tikhub', { query: 'from nasa' })?.name).toBe('tikhub');
    expect(testFault('x_search', 'tikhub', { query: 'esa', tags: ['nasa'] })?.name).toBe('tikhub');
    expect(testFault('x_search', 'tikhub', { query: 'esa' })).toBeUndefined();
  });

  it('fails as a provider answering 503 does, without calling one', async () => {
    withFaults('x_profile=http');

    await expect(testFault('x_profile', 'http', {})?.run({} as never)).rejects.toMatchObject({ detail: { status: 503 } });
  });

  it('is refused without SOCIAL_TEST_MODE=true, and a malformed entry is named', () => {
    withFaults('x_profile=http', 'false');
    expect(() => testFault('x_profile', 'http', {})).toThrow('SOCIAL_TEST_FAULTS is a test switch: it needs SOCIAL_TEST_MODE=true');
    withFaults('x_profile');
    expect(() => testFault('x_profile', 'http', {})).toThrow('got "x_profile"');
  });
});
