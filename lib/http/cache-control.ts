// Apart from params.ts: a schema is built at module load, and only the run and the quote read this header.
import * as z from 'zod/mini';
import { MAX_CACHED_AGE_SECONDS } from '../model.ts';
import { atMost } from './params.ts';

const RULE = `must be max-age=<seconds>, 0 to ${MAX_CACHED_AGE_SECONDS}`;

/** `max-age=<seconds>` and nothing else: how old a cached result the client accepts (docs/social-operations.md). */
export const cacheControl = z
  .string()
  .check(
    // Generous: `max-age=86400` is 13 characters; the rest is room for spaces around it.
    atMost(64, RULE),
    z.regex(/^\s*max-age=\d{1,5}\s*$/i, RULE),
    // Only the bound: a value the pattern refuses is reported once, by the pattern.
    z.refine((value) => !(maxAgeOf(value) > MAX_CACHED_AGE_SECONDS), RULE),
  )
  .register(z.globalRegistry, {
    description: `Accept this organization's cached result of the same operation and input if it is at most this many seconds old (0 to ${MAX_CACHED_AGE_SECONDS}): it is answered at the operation's cached cost (\`x-cached-credit-cost\`, 0 by default) with \`Cache-Status: workspace; hit\` and \`Age\`. Without it the provider is always called.`,
    examples: ['max-age=3600'],
  });

/** The seconds of a valid `cacheControl` value. */
export const maxAgeOf = (value: string): number => Number(value.trim().slice('max-age='.length));
