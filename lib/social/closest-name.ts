/**
 * "Did you mean …?" for operation names: the nearest name by edit distance (insertions,
 * deletions, substitutions and swaps of neighbours, case ignored), if it is near enough to be a
 * typo rather than another word. Pure.
 */

/** Optimal string alignment distance (Damerau-Levenshtein without repeated edits of a substring). */
export function editDistance(a: string, b: string): number {
  // One flat row-major table of (a.length + 1) × (b.length + 1) distances.
  const width = b.length + 1;
  const d = new Int32Array((a.length + 1) * width);
  const at = (i: number, j: number): number => d[i * width + j] ?? 0;
  for (let i = 0; i <= a.length; i += 1) d[i * width] = i;
  for (let j = 0; j <= b.length; j += 1) d[j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * width + j] = best;
    }
  }
  return at(a.length, b.length);
}

/** Up to 2 edits, 3 for names of 12 characters or more; longer input is not a typo of a name. */
const tolerance = (name: string) => (name.length >= 12 ? 3 : 2);
const LONGEST_COMPARED = 64;

/** The candidate nearest to `name` (the first of equals, in the candidates' order), or undefined when none is near. */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  if (name.length > LONGEST_COMPARED) return undefined;
  const wanted = name.toLowerCase();
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, candidate);
    if (distance <= tolerance(candidate) && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}
