/**
 * `get_budget`: what an agent may still spend, before it spends it. No arguments, any role: the
 * body of `GET /organizations/{id}/credits` for the caller (the balance, the organization's and
 * the caller's monthly and daily limits with their spend, and for an API key the key's own), as
 * structured content. The same domain function answers both (lib/billing/balance.ts).
 */
import { readCreditsOverview } from '../billing/balance.ts';
import { validationFailed } from '../errors.ts';
import type { McpScope } from './scope.ts';
import type { CallToolResult, Tool } from './types.ts';

export const BUDGET_TOOL_NAME = 'get_budget';

export const BUDGET_TOOL: Tool = {
  name: BUDGET_TOOL_NAME,
  title: 'Read the budget',
  description:
    "What this workspace and you may still spend: the balance in credits, and the workspace's and your own monthly and daily spending limits with what was spent this UTC month (`spent`) and today (`spent_today`); with an API key, the key's own as `api_key`. Limits are null when unset; daily limits reset at UTC midnight, monthly ones at `period.end`. Costs nothing. Check it before a long or costly run.",
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

/** The budget as a tool result; arguments other than none (or `{}`) are refused as the REST routes refuse unknown fields. */
export async function callBudgetTool(scope: McpScope, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
  const unknown = Object.keys(args ?? {});
  if (unknown.length > 0) {
    throw validationFailed(
      unknown
        .slice(0, 5)
        .map((name) => ({ path: ['arguments', name], code: 'unrecognized_keys', message: 'get_budget takes no arguments' })),
    );
  }
  const budget = { ...(await readCreditsOverview(scope.caller, scope.orgId)) };
  return { content: [{ type: 'text', text: JSON.stringify(budget) }], structuredContent: budget };
}
