/**
 * `initialize`: who this server is, what it offers (tools, nothing else) and what an agent should
 * know before calling (`instructions`), with the protocol version negotiated as the MCP SDK's
 * Server does (lib/mcp/versions.ts).
 */
import { SERVICE_NAME } from '../config.ts';
import { iconsOf } from '../icons.ts';
import { negotiatedVersion } from './versions.ts';

export const SERVER_INFO = { name: SERVICE_NAME, title: 'Workspace Service', version: '1.0.0' };

/** Who this server is, with the service's icon on the origin the client reached (both revisions). */
export const serverInfo = (baseUrl: string) => ({ ...SERVER_INFO, icons: iconsOf('service', baseUrl) });

/** Tools only: no resources, prompts, logging, completions or tasks (those methods answer -32601). */
export const CAPABILITIES = { tools: {} };

export const INSTRUCTIONS = [
  "Social data tools of one workspace (the organization_id in this server's URL).",
  'Every call spends workspace credits (the cost is in each description) and is refunded if the data provider fails;',
  'get_budget tells what may still be spent today and this month, and _meta.max_credits caps what one call may cost.',
  'A refused call returns isError with a JSON body {code, message, data}: validation_failed names the argument to fix;',
  'insufficient_credits (data.billing_url: a page where the workspace owner buys credits; give it to your user),',
  'spending_limit_exceeded (data.resets_at says when it resets), max_credits_exceeded, forbidden',
  'and operation_not_enabled will not change by retrying;',
  'upstream_failed and internal_error may succeed if retried later; not_found means the account or item does not exist.',
  'operation_unavailable (nothing charged) means every provider of that operation is failing: get_status says which operations work now.',
].join(' ');

/** The result of `initialize`, in the SDK Server's key order. */
export const initializeResult = (requestedVersion: string, baseUrl: string) => ({
  protocolVersion: negotiatedVersion(requestedVersion),
  capabilities: CAPABILITIES,
  serverInfo: serverInfo(baseUrl),
  instructions: INSTRUCTIONS,
});
