import type { Caller } from '../model.ts';

/** Who asks, for which workspace, and by when the answer must be out. */
export interface McpScope {
  caller: Caller;
  orgId: string;
  /** Epoch ms by which a tool call must have answered (the function's own deadline). */
  deadlineMs: number;
  /** The HTTP request's id: in refusals' text, as in every error body. */
  requestId: string;
  /** The API's base URL as the client reached it: a refusal for credits names the console's Billing screen under it. */
  baseUrl: string;
}
