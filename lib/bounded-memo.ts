/**
 * Values computed once per key and kept, for values that are fixed for the life of an instance
 * (a listing serialized once per set of operations it lists: docs/performance.md). Bounded: the
 * cache is emptied when it holds `max` values.
 */
export function boundedMemo<T>(max: number): (key: string, compute: () => T) => T {
  const values = new Map<string, T>();
  return (key, compute) => {
    let value = values.get(key);
    if (value === undefined) {
      if (values.size >= max) values.clear();
      value = compute();
      values.set(key, value);
    }
    return value;
  };
}
