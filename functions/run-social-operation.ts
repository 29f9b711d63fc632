import * as z from 'zod/mini';
import { endpoint, Reply } from '../lib/http/endpoint.ts';
import { organizationId } from '../lib/http/params.ts';
import { runSocialOperation } from '../lib/social/run.ts';

/** Printable ASCII, as most APIs that take an Idempotency-Key accept (UUIDs recommended). */
const idempotencyKey = z
  .string()
  .check(z.regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters without spaces (a UUID is recommended)'));

/**
 * POST /social/{operation}?organization_id= — editors and owners. Body: the operation input;
 * 200 body: its output, with Credits-Charged and Credits-Remaining headers.
 */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({ operation: z.string() }),
      query: z.object({ organization_id: organizationId }),
      headers: z.object({ 'idempotency-key': z.optional(idempotencyKey) }),
      // The operation's own schema validates the body once the operation is known.
      body: z.unknown(),
    },
    jsonBody: true,
  },
  async ({ path, query, headers, body }, context) => {
    const result = await runSocialOperation({
      caller: context.caller,
      orgId: query.organization_id,
      operationName: path.operation,
      input: body,
      idempotencyKey: headers['idempotency-key'],
      deadlineMs: Date.now() + (context.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY),
    });
    return new Reply(result.output, {
      'Credits-Charged': String(result.charged),
      ...(result.remaining === undefined ? {} : { 'Credits-Remaining': String(result.remaining) }),
      ...(result.replayed ? { 'Idempotent-Replayed': 'true' } : {}),
    });
  },
);
