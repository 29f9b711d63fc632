/**
 * How deep the matrix- and stress-shaped files go (the `DEEP` list of vitest.config.ts).
 *
 * `npm test`, the everyday command, runs each of them at the everyday depth: a fixed sample that
 * still reaches every row and every column of the matrix, and stress at a smaller scale that still
 * puts more runs in flight than a limit lets through. `npm run test:long`, which CI runs after
 * `npm test`, runs the same files again with `TEST_DEPTH=full`: every cell and the full scale. So
 * nothing CI checked before is left out, and the everyday command stays under its 100 s
 * (docs/local-development.md, "Tests").
 */
export const FULL_DEPTH = process.env.TEST_DEPTH === 'full';

/** `everyday` under `npm test`, `full` under `npm run test:long`. */
export const atDepth = <T>(everyday: T, full: T): T => (FULL_DEPTH ? full : everyday);

/**
 * Every cell at full depth; at the everyday depth the cells `keep` picks (by their index), which
 * the caller chooses so that each row and each column still appears. Deterministic: the same
 * cells every run, so a failure found once is found again.
 */
export const cellsAtDepth = <T>(cells: readonly T[], keep: (cell: T, index: number) => boolean): T[] =>
  FULL_DEPTH ? [...cells] : cells.filter(keep);
