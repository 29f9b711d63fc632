/**
 * The machine's pace now: the wall time of a fixed loop of hashing and arithmetic (about 1 s on
 * the 2-core machine at its best). Shared machines slow down by up to 1.7× within an hour, so a
 * figure in docs/performance.md says the pace it was taken at; compare figures of one pace only.
 * `node scripts/machine-pace.mjs` before and after a measurement.
 */
import { createHash } from 'node:crypto';

const started = process.hrtime.bigint();
let digest = Buffer.alloc(64);
for (let i = 0; i < 400_000; i += 1) digest = createHash('sha256').update(digest).digest();
let sum = 0;
for (let i = 0; i < 30_000_000; i += 1) sum += Math.sqrt(i) % 7;
const ms = Number(process.hrtime.bigint() - started) / 1e6;
// The sum is printed so that no engine can drop the loop as dead code.
process.stdout.write(`machine pace ${(ms / 1000).toFixed(2)} s (0.95 at best on the 2-core machine; checksum ${sum.toFixed(0)})\n`);
