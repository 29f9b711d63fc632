/**
 * At most `size` pieces of work at once; the others wait their turn, the one with the lowest
 * `rank` first (ties: first come, first served).
 */
export function callSlots(size: number) {
  let free = size;
  const waiting: { rank: number; start: () => void }[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next.start();
    else free += 1;
  };
  /** Where a waiter of `rank` goes: after every waiter of a rank no higher (binary search). */
  const placeOf = (rank: number) => {
    let low = 0;
    let high = waiting.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((waiting[middle]?.rank ?? 0) <= rank) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  return {
    async run<T>(work: () => Promise<T>, rank = 0): Promise<T> {
      if (free > 0) free -= 1;
      else await new Promise<void>((start) => waiting.splice(placeOf(rank), 0, { rank, start }));
      try {
        return await work();
      } finally {
        release();
      }
    },
    /** Work running and waiting now (for tests). */
    get load() {
      return { running: size - free, waiting: waiting.length };
    },
  };
}
