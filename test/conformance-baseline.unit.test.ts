/**
 * conformance-baseline.yml, read by `npm run conformance` (scripts/conformance.ts): each
 * scenario it names says why it does not apply, and the scenarios that apply to this server are
 * never in it (the suite itself runs in its own script, not in npm test: ~20 s). Its `client:`
 * list names the suite's client scenarios (the auth/ ones among them), which test a client.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BASELINE } from '../scripts/conformance.ts';

const lines = readFileSync(BASELINE, 'utf8').split('\n');
const entries = lines.flatMap((line, index) => {
  const match = /^ {2}- ([a-z0-9/_-]+)( # .+)?$/.exec(line);
  return match ? [{ name: match[1] ?? '', reason: match[2], index }] : [];
});

describe('the conformance baseline', () => {
  it('is a server list, then a client list, of distinct scenario names', () => {
    const client = lines.indexOf('client:');
    expect(lines.filter((line) => line.trim() !== '' && !line.startsWith('#') && !line.trim().startsWith('#'))).toEqual([
      'server:',
      ...entries.filter((entry) => entry.index < client).map((entry) => lines[entry.index]),
      'client:',
      ...entries.filter((entry) => entry.index > client).map((entry) => lines[entry.index]),
    ]);
    // Every auth scenario is a client's: the suite (0.1.16) has none for a server.
    expect(entries.filter((entry) => entry.name.startsWith('auth/') && entry.index < client)).toEqual([]);
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
