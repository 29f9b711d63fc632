/**
 * conformance-baseline.yml, read by `npm run conformance` (scripts/conformance.ts): each
 * scenario it names says why it does not apply, and the scenarios that apply to this server are
 * never in it (the suite itself runs in its own script, not in npm test: ~20 s).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BASELINE } from '../scripts/conformance.ts';

const lines = readFileSync(BASELINE, 'utf8').split('\n');
const entries = lines.flatMap((line, index) => {
  const match = /^ {2}- ([a-z0-9-]+)( # .+)?$/.exec(line);
  return match ? [{ name: match[1] ?? '', reason: match[2], index }] : [];
});

describe('the conformance baseline', () => {
  it('is a server list of distinct scenario names', () => {
    expect(lines.filter((line) => line.trim() !== '' && !line.startsWith('#') && !line.trim().startsWith('#'))).toEqual([
      'server:',
      ...entries.map((entry) => lines[entry.index]),
    ]);
    expect(new Set(entries.map((entry) => entry.name)).size).toBe(entries.length);
  });

  it('says why for each scenario: on its line, or in the comment of its group', () => {
    const unexplained = entries.filter(({ reason, index }) => !reason && !lines[index - 1]?.trim().startsWith('#'));

    expect(unexplained).toEqual([]);
  });

  it('never excuses a scenario that applies to this server', () => {
    const applies = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

    expect(entries.filter((entry) => applies.includes(entry.name))).toEqual([]);
  });
});
