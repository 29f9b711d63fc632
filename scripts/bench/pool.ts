/**
 * Runs `work(i)` for i = 0 … count-1 with `concurrency` workers; worker w takes i = w, w + c,
 * w + 2c, …, so two requests run at the same time only if their indexes differ modulo c
 * (scenarios use that to give each worker its own organization).
 */
export async function forEachIndex(count: number, concurrency: number, work: (i: number) => Promise<unknown>): Promise<void> {
  const workers = Math.max(1, Math.min(concurrency, count));
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = w; i < count; i += concurrency) await work(i);
    }),
  );
}
