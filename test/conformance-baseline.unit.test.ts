/**
 * The conformance baselines, one per revision, read by `npm run conformance`
 * (scripts/conformance.ts): each scenario one names says why it does not apply, and the scenarios
 * that apply to this server are never in it (the suite itself runs in its own script, not in npm
 * test). The 2025-11-25 one's `client:` list names the suite's client scenarios (the auth/ ones
 * among them), which test a client.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BASELINE, REVISIONS } from '../scripts/conformance.ts';

const lines = readFileSync(BASELINE, 'utf8').split('\n');
const entriesOf = (text: string[]) =>
  text.flatMap((line, index) => {
    const match = /^ {2}- ([a-z0-9/_-]+)( # .+)?$/.exec(line);
    return match ? [{ name: match[1] ?? '', reason: match[2], index }] : [];
  });
const entries = entriesOf(lines);

describe.each(Object.entries(REVISIONS))('the %s baseline', (_revision, file) => {
  const own = readFileSync(file, 'utf8').split('\n');
  const named = entriesOf(own);

  it('is a server list of distinct scenario names, each with why', () => {
    expect(own.filter((line) => line.trim() !== '' && !line.trim().startsWith('#'))[0]).toBe('server:');
    expect(new Set(named.map((entry) => entry.name)).size).toBe(named.length);
    expect(named.filter(({ reason, index }) => !reason && !own[index - 1]?.trim().startsWith('#'))).toEqual([]);
  });

  it('never excuses a scenario that applies to this server and passes', () => {
    const applies = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection', 'http-header-validation'];
    expect(named.filter((entry) => applies.includes(entry.name))).toEqual([]);
  });
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
