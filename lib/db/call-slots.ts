/** At most `size` pieces of work at once; the others wait their turn, first come first served. */
export function callSlots(size: number) {
  let free = size;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free += 1;
  };
  return {
    async run<T>(work: () => Promise<T>): Promise<T> {
      if (free > 0) free -= 1;
      else await new Promise<void>((resolve) => waiting.push(resolve));
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
