/**
 * Bulk jobs for agents, as two MCP tools beside the operations (docs/mcp.md, "Jobs"): `start_job`
 * hands over up to 1,000 inputs of one operation and answers at once with the job; `get_job` reads
 * it and a page of its items. Both call the same domain functions as the REST routes
 * (lib/jobs/jobs.ts): the same checks, the same limit, the same money. Tools rather than the MCP
 * tasks extension: see docs/mcp.md for why.
 */
import * as z from 'zod/mini';
import { maxCreditsNumber } from '../billing/max-credits.ts';
import { issuesOf, notFound, validationFailed } from '../errors.ts';
import { createSocialJob, MAX_JOB_INPUTS, type NewJob } from '../jobs/create-job.ts';
import { getSocialJob, JOB_ITEM_STATUSES, listSocialJobItems } from '../jobs/jobs.ts';
import { MAX_CREDITS_CEILING } from '../model.ts';
import { MAX_FIELD_PATHS, MAX_FIELDS_CHARS } from '../social/fields.ts';
import { type Cut, sizedResult } from './result-size.ts';
import type { McpScope } from './scope.ts';
import type { CallToolResult, Tool } from './types.ts';

export const JOB_TOOL_NAMES = ['start_job', 'get_job'] as const;
export type JobToolName = (typeof JOB_TOOL_NAMES)[number];
export const isJobTool = (name: string): name is JobToolName => (JOB_TOOL_NAMES as readonly string[]).includes(name);

export const JOB_TOOLS: Tool[] = [
  {
    name: 'start_job',
    title: 'Start a bulk job',
    description: `Runs one social operation on 1 to ${MAX_JOB_INPUTS} inputs in the background and answers at once with the job (its \`id\`). Each item is charged like a single call of the operation's tool when it runs; once credits or a spending limit refuse one, the rest fail uncharged. With \`max_credits\` (or \`_meta.max_credits\`) the whole job is charged at most that: an item that would pass it fails uncharged with max_credits_exceeded. At most 5 jobs queued or running per workspace. Read progress and results with get_job.`,
    inputSchema: {
      type: 'object',
      properties: {
        operation: { type: 'string', maxLength: 64, description: "the operation to run: one of this server's other tools, e.g. x_profile" },
        inputs: {
          type: 'array',
          minItems: 1,
          maxItems: MAX_JOB_INPUTS,
          items: { type: 'object' },
          description: "the operation's arguments, one object per item, as its own tool takes them",
        },
        webhook_url: { type: 'string', maxLength: 2048, description: 'optional https URL to POST the finished job to (signed)' },
        max_credits: {
          type: 'integer',
          minimum: 0,
          maximum: MAX_CREDITS_CEILING,
          description:
            'optional: the most the whole job may be charged, in credits (refunded items give theirs back); items past it fail uncharged with max_credits_exceeded, the job ends normally. The same as _meta.max_credits on this call',
        },
        _fields: {
          type: 'string',
          maxLength: MAX_FIELDS_CHARS,
          description: `optional: every item's output keeps only these paths, as the operation's own \`_fields\` (comma-separated dotted paths into its output schema, "*" for every element of an array, e.g. "items.*.id,items.*.text"; at most ${MAX_FIELD_PATHS}). Same cost; keeps get_job's answers small`,
        },
      },
      required: ['operation', 'inputs'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  {
    name: 'get_job',
    title: 'Read a bulk job',
    description:
      "A job's status and counts (succeeded, failed, cancelled, pending, credits charged) and a page of its items with their outputs or errors. Call again while `status` is queued or running; pass `next_cursor` as `cursor` for the next page.",
    inputSchema: {
      type: 'object',
      properties: {
        job_id: { type: 'string', pattern: '^job_[0-9a-f]{32}$' },
        status: { type: 'string', enum: [...JOB_ITEM_STATUSES], description: 'only the items in this status' },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 25, description: 'items per page' },
        cursor: { type: 'string', maxLength: 512 },
      },
      required: ['job_id'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
];

const startArguments = z.strictObject({
  operation: z.string().check(z.maxLength(64)),
  inputs: z.array(z.unknown()).check(z.minLength(1), z.maxLength(MAX_JOB_INPUTS)),
  webhook_url: z.optional(z.string().check(z.maxLength(2048))),
  max_credits: z.optional(maxCreditsNumber()),
  // Its bounds and paths are checked against the operation's output schema by the job's creation.
  _fields: z.optional(z.string()),
});

const getArguments = z.strictObject({
  job_id: z.string().check(z.regex(/^job_[0-9a-f]{32}$/, 'must be a job id: "job_" followed by 32 lowercase hex digits')),
  status: z.optional(z.enum(JOB_ITEM_STATUSES)),
  limit: z.optional(z.int().check(z.gte(1), z.lte(100))),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(512))),
});

function parsed<T>(schema: z.ZodMiniType<T>, args: Record<string, unknown> | undefined): T {
  const result = schema.safeParse(args ?? {});
  if (!result.success) throw validationFailed(issuesOf('arguments', result.error, args ?? {}));
  return result.data;
}

const structured = (value: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
  structuredContent: value,
});

/**
 * How to read the items a cut left out of a page of get_job: the same page with a `limit` that
 * fits, then on from its `next_cursor` (this answer's cursor continues after the whole page).
 */
const jobPageAdvice =
  (jobId: string) =>
  (cuts: readonly Cut[]): string => {
    const items = cuts.find((cut) => cut.path === 'items');
    if (!items) return 'Call get_job again for the rest.';
    const start = `Do not follow this answer's next_cursor before reading them: it continues after all ${items.total} items of this page.`;
    if (items.kept === 0) {
      return `One item is too large for a tool result by itself: read it with GET /social/jobs/${jobId}/items, or run the job again with "_fields" naming only what you need. ${start}`;
    }
    return `To read the rest, call get_job with "limit": ${items.kept} and the same job_id, status and cursor, then follow the next_cursor of that answer. ${start}`;
  };

/**
 * Runs a job tool; a refusal is thrown as the ServiceError the REST route would answer.
 * `metaMaxCredits`: the call's `_meta.max_credits` (checked), which for start_job is the job's
 * `max_credits`, as `Max-Credits` is on the REST route.
 */
export async function callJobTool(
  scope: McpScope,
  name: JobToolName,
  args: Record<string, unknown> | undefined,
  maxChars: number,
  metaMaxCredits?: number,
  consent?: NewJob['consent'],
): Promise<CallToolResult> {
  if (name === 'start_job') {
    const { operation, inputs, webhook_url, _fields, max_credits } = parsed(startArguments, args);
    const { job } = await createSocialJob({
      caller: scope.caller,
      orgId: scope.orgId,
      operationName: operation,
      inputs,
      webhookUrl: webhook_url,
      fields: _fields === undefined ? undefined : { text: _fields, at: ['arguments', '_fields'] },
      maxCredits: [
        { value: max_credits, at: ['arguments', 'max_credits'] },
        { value: metaMaxCredits, at: ['_meta', 'max_credits'] },
      ],
      consent,
    });
    return structured({ ...job });
  }
  const { job_id, status, limit, cursor } = parsed(getArguments, args);
  // A job of another workspace is not found here, as on GET /social/jobs/{job_id} for a non-member.
  const job = await getSocialJob(scope.caller, job_id);
  if (job.organization_id !== scope.orgId) throw notFound();
  const page = await listSocialJobItems(scope.caller, job_id, { limit: limit ?? 25, status, cursor }, scope.baseUrl);
  const { truncation, ...sized } = sizedResult({ job: { ...job }, ...page }, maxChars, { rest: jobPageAdvice(job_id) });
  return { ...sized, ...(truncation ? { _meta: truncation } : {}) };
}
