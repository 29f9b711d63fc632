/**
 * How an operation is served by TikHub: the calls it makes, each one GET of a documented path (the
 * provider checks the envelope and the status of each), and the translation of their `data` into
 * our output. Most operations are one call (`call`); a few need several (the trend boards of
 * tiktok_trend_scan, in parallel), and write `run` themselves.
 */
import type * as z from 'zod/mini';

export type TikHubParams = Record<string, string | number | boolean | undefined>;
type Input = Readonly<Record<string, unknown>>;

/** One GET of a TikHub path: its envelope's `data`, parsed by `response` (any other shape throws). */
export type TikHubGet = <Schema extends z.ZodMiniType>(path: string, params: TikHubParams, response: Schema) => Promise<z.output<Schema>>;

export interface TikHubMapping {
  /** The paths it may call (the stub serves each; docs/social-operations.md lists them). */
  readonly paths: readonly string[];
  /** Why this input cannot be sent to TikHub (an option its endpoint lacks), or undefined: the run goes to the next provider. */
  unsupported?(input: Input): string | undefined;
  run(get: TikHubGet, input: Input): Promise<unknown>;
}

/** A mapping of one call: its path, its query, the shape of `data` read, and the translation. */
export const call = <Schema extends z.ZodMiniType>(spec: {
  path: string;
  params(input: Input): TikHubParams;
  response: () => Schema;
  translate(data: z.output<Schema>, input: Input): unknown;
  unsupported?(input: Input): string | undefined;
}): TikHubMapping => ({
  paths: [spec.path],
  ...(spec.unsupported ? { unsupported: spec.unsupported } : {}),
  run: async (get, input) => spec.translate(await get(spec.path, spec.params(input), spec.response()), input),
});
