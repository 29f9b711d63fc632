/**
 * Commit subjects say what changed in at most 72 characters (git's own one-line views, `git log
 * --oneline` in a terminal and the web's lists, cut longer ones). 45 of 252 were over before
 * cd9eceb; from there on, none. A clone without that history (a shallow or exported copy) has
 * nothing to check, and says so rather than passing silently.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const SINCE = 'cd9eceb';
const MAX_SUBJECT = 72;

function subjectsSince(commit: string): string[] | null {
  try {
    const output = execFileSync('git', ['log', '--no-merges', '--format=%s', `${commit}..HEAD`], {
      cwd: new URL('..', import.meta.url),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return output.split('\n').filter((line) => line !== '');
  } catch {
    return null;
  }
}

describe('commit subjects', () => {
  const subjects = subjectsSince(SINCE);

  it.skipIf(subjects === null)(`are at most ${MAX_SUBJECT} characters since ${SINCE}`, () => {
    expect(subjects?.filter((subject) => [...subject].length > MAX_SUBJECT)).toEqual([]);
  });
});
