/**
 * What the code under test writes to stdout and stderr (log lines, EMF records), captured for
 * each test of the file that calls `captureOutput()` and given back whole or as JSON records.
 */
import { afterEach, beforeEach } from 'vitest';

export type Stream = 'stdout' | 'stderr';

export interface CapturedOutput {
  /** Everything written, both streams, in order. */
  text(): string;
  /** Each line that is a JSON object, parsed, with the stream it was written to (the logger and the metrics write whole lines). */
  lines(): { stream: Stream; record: Record<string, any> }[];
  /** Each line that is a JSON object, parsed. */
  records(): Record<string, any>[];
}

export function captureOutput(): CapturedOutput {
  let written: { stream: Stream; chunk: string }[] = [];
  const originals = { stdout: process.stdout.write, stderr: process.stderr.write };
  const capture = (stream: Stream) =>
    ((chunk: unknown) => {
      written.push({ stream, chunk: String(chunk) });
      return true;
    }) as typeof process.stdout.write;
  beforeEach(() => {
    written = [];
    process.stdout.write = capture('stdout');
    process.stderr.write = capture('stderr');
  });
  afterEach(() => {
    process.stdout.write = originals.stdout;
    process.stderr.write = originals.stderr;
  });
  const lines = () =>
    written.flatMap(({ stream, chunk }) =>
      chunk
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => ({ stream, record: JSON.parse(line) as Record<string, any> })),
    );
  return {
    text: () => written.map(({ chunk }) => chunk).join(''),
    lines,
    records: () => lines().map(({ record }) => record),
  };
}
