/**
 * `get_status`: whether the operations work right now, before an agent spends on one. No
 * arguments, any role: the body of `GET /social/status` (the page's indicator, and each of the 52
 * operations' status with its providers' success rate and p50 over the last hour), as structured
 * content. The same kept page answers both (lib/social/health/status.ts): one Query at most every
 * 15 s per instance.
 */
import { validationFailed } from '../errors.ts';
import { statusPage } from '../social/health/status.ts';
import type { CallToolResult, Tool } from './types.ts';

export const STATUS_TOOL_NAME = 'get_status';

export const STATUS_TOOL: Tool = {
  name: STATUS_TOOL_NAME,
  title: 'Read the status',
  description:
    "Whether each social operation works right now, in Statuspage's words: the overall `indicator` (`none`, `minor`, `major`, `critical`), and per operation its `status` (`operational`, `degraded_performance`, `partial_outage`: a provider is out and another serves it, `major_outage`: none serves it, and a run answers `operation_unavailable` without charging), `since`, and its providers in failover order with their success rate and median latency over the last hour. Costs nothing. Check it when a run failed, or before a long job.",
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

/** The status page as a tool result; arguments other than none (or `{}`) are refused as get_budget refuses them. */
export async function callStatusTool(args: Record<string, unknown> | undefined): Promise<CallToolResult> {
  const unknown = Object.keys(args ?? {});
  if (unknown.length > 0) {
    throw validationFailed(
      unknown
        .slice(0, 5)
        .map((name) => ({ path: ['arguments', name], code: 'unrecognized_keys', message: 'get_status takes no arguments' })),
    );
  }
  const page = { ...(await statusPage()) };
  return { content: [{ type: 'text', text: JSON.stringify(page) }], structuredContent: page };
}
