/**
 * The vendor's leaf values as zod/mini schemas: what the network modules build their response
 * shapes from (social-operations.md).
 */
import * as z from 'zod/mini';

// Every field is optional and nullable: the vendor leaves out what a platform does not show, and
// the translation turns anything absent into null. Ids, counts and times take both the numbers
// and the text the platforms send; anything else of another type is read as absent (read-body.ts).
// Each leaf is built on first use and then shared: even these few schemas cost a cold start about
// 2 ms of CPU when built at load (zod compiling its code for unions and nullables the first time).

/** A value built on first call and kept. */
export const once = <T>(build: () => T): (() => T) => {
  let value: T | undefined;
  return () => (value ??= build());
};

/** Ids and cursors: text, or numbers for those that fit a double ("7016…337" and 7016…000). */
export const id = once(() => z.nullish(z.union([z.string(), z.number()])));
/** Counts: numbers, or text where the platform sends text (X views "99000", "1,234"). */
export const count = id;
/** Times: unix seconds (number or digits), ISO 8601, or X's "Thu Sep 12 00:08:39 +0000 2024". */
export const time = id;
export const text = once(() => z.nullish(z.string()));
/** Flags: booleans, or 0/1 (TikTok's has_more, is_top). */
export const flag = once(() => z.nullish(z.union([z.boolean(), z.number()])));
/** A field whose type the record does not give: the value readers narrow it (a non-string URL is null). */
export const loose = once(() => z.unknown());
export const list = <T extends z.ZodMiniType>(item: T) => z.nullish(z.array(item));
export const object = <Shape extends z.core.$ZodShape>(shape: Shape) => z.nullish(z.object(shape));
/** `{ url_list: [...] }`, TikTok's way of giving a URL (the first is used). */
export const urlList = once(() => object({ url_list: list(z.string()) }));
