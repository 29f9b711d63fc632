/**
 * A value the code knows is there (the item a successful write returned, a row of a table it
 * sized itself), checked rather than asserted: if the knowledge is ever wrong, the error says
 * what was missing instead of failing later on `undefined`.
 */
export function defined<T>(value: T | null | undefined, what: string): T {
  if (value === undefined || value === null) throw new Error(`${what} is missing`);
  return value;
}
