/**
 * The one error body (DESIGN.md "Error body") as a zod schema: the API description's schema of
 * every error, and the type the error mapper builds. Kept apart from the mapper so that no
 * function bundles the schema (the mapper imports only its type).
 */
import * as z from 'zod/mini';
import { ERROR_CATALOG, type ErrorCode } from '../errors.ts';

const issueSchema = z.object({
  path: z.array(z.union([z.string(), z.int()])),
  code: z.string(),
  message: z.string(),
});

/** The one error body (DESIGN.md "Error body"); the API description's schema of every error. */
export const errorBodySchema = z.object({
  code: z.enum(Object.keys(ERROR_CATALOG) as [ErrorCode, ...ErrorCode[]]),
  message: z.string(),
  /** Validation issues (400), and facts a client can act on (a 402's balance and cost, …). */
  data: z.optional(z.catchall(z.object({ issues: z.optional(z.array(issueSchema)) }), z.unknown())),
  request_id: z.string(),
});
export type ErrorBody = z.output<typeof errorBodySchema>;
