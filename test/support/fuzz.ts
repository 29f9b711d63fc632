/**
 * How many generated cases a property test runs: a short, fixed-seed run in `npm test`, and
 * `FUZZ_RUNS` of them under `npm run fuzz` (package.json), which runs every such file longer.
 */
export const fuzzRuns = (short: number): number => Number(process.env.FUZZ_RUNS) || short;
