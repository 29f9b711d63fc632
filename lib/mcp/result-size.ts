/**
 * A tool result that fits `MCP_MAX_RESULT_CHARS` (DESIGN.md, "Outputs sized for agents";
 * docs/mcp.md, "Results that fit"): MCP hosts cap what a tool may put in a model's context, and
 * a result over the cap is cut by the host without a word, or refused. Pure.
 *
 * The cut keeps whole elements: the arrays nearest the top of the value (a page's `items`, a
 * post's `media`, `hashtags` and `mentions`), each kept as a prefix, taking their elements in
 * turn (the first of each, then the second of each, …) while they fit, so that one large array
 * does not leave the others empty. Only when the value with those arrays emptied is still over
 * (a single huge text) are its longest strings shortened, to no less than 100 characters.
 */
import type { CallToolResult } from './types.ts';

/** What the cut left of one array (elements) or string (characters): a prefix of `total`. */
export interface Cut {
  path: string;
  kept: number;
  total: number;
  unit: 'elements' | 'characters';
}

type Json = Record<string, unknown>;
type Segment = string | number;

/** A string is never shortened below this: ids, times, URLs and enum values are shorter, and stay whole. */
const SHORTEST_CUT_STRING = 100;

const dotted = (path: readonly Segment[]) => path.join('.');

interface ArraySlot {
  path: Segment[];
  elements: unknown[];
  kept: number;
  /** Closed once its next element did not fit: it keeps a prefix. */
  open: boolean;
}

/** The arrays reachable from the root through objects only. */
function outermostArrays(value: unknown, path: Segment[], into: ArraySlot[]): ArraySlot[] {
  if (Array.isArray(value)) into.push({ path, elements: value, kept: 0, open: true });
  else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) outermostArrays(child, [...path, key], into);
  }
  return into;
}

/** A copy of `value` with the array at each slot's path replaced by its kept prefix. */
function withPrefixes(value: unknown, slots: readonly ArraySlot[], depth = 0): unknown {
  const here = slots.find((slot) => slot.path.length === depth);
  if (here) return here.elements.slice(0, here.kept);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => {
      const below = slots.filter((slot) => slot.path[depth] === key);
      return [key, below.length === 0 ? child : withPrefixes(child, below, depth + 1)];
    }),
  );
}

/** Elements taken in turn across the arrays while `room` (characters of JSON) lasts. */
function fillInTurn(slots: ArraySlot[], room: number): void {
  let left = room;
  let progress = true;
  while (progress) {
    progress = false;
    for (const slot of slots) {
      if (!slot.open || slot.kept >= slot.elements.length) continue;
      // The element, and the comma before it unless it is the first.
      const cost = (JSON.stringify(slot.elements[slot.kept]) ?? 'null').length + (slot.kept > 0 ? 1 : 0);
      if (cost > left) {
        slot.open = false;
        continue;
      }
      left -= cost;
      slot.kept += 1;
      progress = true;
    }
  }
}

/** The strings of `value` (no array left in it) longer than the shortest cut, with their paths. */
function longStrings(value: unknown, path: Segment[], into: { path: Segment[]; text: string }[]) {
  if (typeof value === 'string' && value.length > SHORTEST_CUT_STRING) into.push({ path, text: value });
  else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, child] of Object.entries(value)) longStrings(child, [...path, key], into);
  }
  return into;
}

function setAt(value: Json, path: readonly Segment[], replacement: unknown): void {
  let target = value as Record<Segment, unknown>;
  for (const key of path.slice(0, -1)) target = target[key] as Record<Segment, unknown>;
  target[path.at(-1) as Segment] = replacement;
}

/** `text` cut to `length` characters with an ellipsis, never splitting a surrogate pair. */
function shortened(text: string, length: number): string {
  let end = Math.max(0, length - 1);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** The value cut to at most `budget` characters of JSON, what was cut, and its JSON. */
export function cutToFit(value: Json, budget: number): { value: Json; text: string; cuts: Cut[] } {
  const slots = outermostArrays(value, [], []);
  const skeleton = withPrefixes(value, slots) as Json;
  const skeletonChars = JSON.stringify(skeleton).length;
  const arrayCuts = () =>
    slots
      .filter((slot) => slot.kept < slot.elements.length)
      .map((slot): Cut => ({ path: dotted(slot.path), kept: slot.kept, total: slot.elements.length, unit: 'elements' }));
  if (skeletonChars <= budget) {
    fillInTurn(slots, budget - skeletonChars);
    const cut = withPrefixes(value, slots) as Json;
    return { value: cut, text: JSON.stringify(cut), cuts: arrayCuts() };
  }
  // Even without its arrays the value is over: shorten its longest strings, the longest first.
  const cut = structuredClone(skeleton);
  const cuts = arrayCuts();
  let text = JSON.stringify(cut);
  for (const long of longStrings(cut, [], []).sort((a, b) => b.text.length - a.text.length)) {
    if (text.length <= budget) break;
    const length = Math.max(SHORTEST_CUT_STRING, long.text.length - (text.length - budget));
    setAt(cut, long.path, shortened(long.text, length));
    cuts.push({ path: dotted(long.path), kept: length, total: long.text.length, unit: 'characters' });
    text = JSON.stringify(cut);
  }
  return { value: cut, text, cuts };
}

/** What a cut result tells the agent, in its text and its `_meta`. */
export interface Advice {
  /** Sentences for the model: how to get the rest. */
  rest: (cuts: readonly Cut[]) => string;
}

const count = (n: number) => n.toLocaleString('en-US');

const cutWords = (cut: Cut) =>
  cut.unit === 'elements'
    ? `${cut.path} keeps its first ${count(cut.kept)} of ${count(cut.total)} elements`
    : `${cut.path} keeps its first ${count(cut.kept)} of ${count(cut.total)} characters`;

/** Named in the text at most; the rest counted (a value has few arrays near its top, but need not). */
const CUTS_NAMED = 5;

function noteOf(cuts: readonly Cut[], fullChars: number, maxChars: number, rest: string): string {
  const named = cuts.slice(0, CUTS_NAMED).map(cutWords);
  if (cuts.length > CUTS_NAMED) named.push(`${cuts.length - CUTS_NAMED} more were cut too (see _meta.cut)`);
  return `[This result was cut to fit the ${count(maxChars)}-character limit of a tool result; the whole result is ${count(fullChars)} characters. ${named.join('; ')}. ${rest}]`;
}

/**
 * The success result of a structured value: as it is when its JSON fits in `maxChars`; else cut
 * (cutToFit), its JSON text followed by a second text block that says, for the model, what was
 * cut and how to get the rest, and `_meta` saying the same for code: `truncated`, `full_chars`,
 * `max_chars`, `cut` and `rest`. Both text blocks together stay within `maxChars`.
 */
export function sizedResult(
  value: Json,
  maxChars: number,
  advice: Advice,
): Pick<CallToolResult, 'content' | 'structuredContent'> & {
  truncation?: Record<string, unknown>;
} {
  const text = JSON.stringify(value);
  if (text.length <= maxChars) return { content: [{ type: 'text', text }], structuredContent: value };
  // The note's length depends on the cut; the longest it can be (every array named, kept = total) is kept aside first.
  const worst = outermostArrays(value, [], []).map(
    (slot): Cut => ({ path: dotted(slot.path), kept: slot.elements.length, total: slot.elements.length, unit: 'elements' }),
  );
  let budget = maxChars - noteOf(worst, text.length, maxChars, advice.rest(worst)).length;
  for (;;) {
    const fitted = cutToFit(value, Math.max(0, budget));
    const rest = advice.rest(fitted.cuts);
    const note = noteOf(fitted.cuts, text.length, maxChars, rest);
    const over = fitted.text.length + note.length - maxChars;
    if (over <= 0 || budget <= 0) {
      return {
        content: [
          { type: 'text', text: fitted.text },
          { type: 'text', text: over <= 0 ? note : note.slice(0, Math.max(0, note.length - over)) },
        ],
        structuredContent: fitted.value,
        truncation: { truncated: true, full_chars: text.length, max_chars: maxChars, cut: fitted.cuts, rest },
      };
    }
    budget -= over;
  }
}
