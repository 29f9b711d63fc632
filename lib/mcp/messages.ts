/**
 * What a JSON-RPC message must be, as the MCP SDK 1.32.2 judges it (types.js
 * `JSONRPCMessageSchema` and the params schemas every request shares), rebuilt with zod/mini:
 * the SDK builds all of its schemas with classic zod at import (a cold start's cost), for what
 * this server checks with a handful. Same structure, so the same messages pass and the
 * same parsed copy comes out; test/mcp/schemas.unit.test.ts compares both on generated messages.
 * Built on first use, not at import.
 */
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import type { JsonRpcRequest } from './jsonrpc.ts';

// The SDK's classic zod registered English on import; zod/mini registers no locale, and the
// messages of the SDK's params errors (lib/mcp/request-schemas.ts) are zod's English ones.
z.config(en());

/** A value built on first call and kept. */
export const once = <T>(build: () => T): (() => T) => {
  let value: T | undefined;
  return () => (value ??= build());
};

/** `z.number().int()` of classic zod. */
export const integer = () => z.number().check(z.int());

const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

/** A request's `_meta` (the SDK's RequestMetaSchema): a progress token, a related task, anything else. */
export const requestMeta = once(() =>
  z.looseObject({
    progressToken: z.optional(z.union([z.string(), integer()])),
    [RELATED_TASK_META_KEY]: z.optional(z.object({ taskId: z.string() })),
  }),
);

/** A task asked for (TaskMetadataSchema). */
export const taskMetadata = once(() => z.object({ ttl: z.optional(z.number()) }));

const schemas = once(() => {
  const jsonrpc = z.literal('2.0');
  const id = z.union([z.string(), integer()]);
  const params = z.optional(z.looseObject({ _meta: z.optional(requestMeta()) }));
  return {
    // Tried in the SDK's union order; each one strict, as the SDK's.
    request: z.strictObject({ jsonrpc, id, method: z.string(), params }),
    notification: z.strictObject({ jsonrpc, method: z.string(), params }),
    result: z.strictObject({ jsonrpc, id, result: z.looseObject({ _meta: z.optional(requestMeta()) }) }),
    error: z.strictObject({
      jsonrpc,
      id: z.optional(id),
      error: z.object({ code: integer(), message: z.string(), data: z.optional(z.unknown()) }),
    }),
    // TaskAugmentedRequestParamsSchema: the SDK's Protocol asks for a task capability when a request's params are these.
    taskAugmented: z.object({ _meta: z.optional(requestMeta()), task: z.optional(taskMetadata()) }),
  };
});

/** A valid JSON-RPC message: a request (answered), or something else (a notification, a response: accepted). */
export type Message =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: { method: string } }
  | { kind: 'response' };

/** The message as the SDK's `JSONRPCMessageSchema` parses it, or undefined when it is not one. */
export function parseMessage(value: unknown): Message | undefined {
  const { request, notification, result, error } = schemas();
  const asRequest = request.safeParse(value);
  if (asRequest.success) return { kind: 'request', message: asRequest.data };
  const asNotification = notification.safeParse(value);
  if (asNotification.success) return { kind: 'notification', message: asNotification.data };
  return result.safeParse(value).success || error.safeParse(value).success ? { kind: 'response' } : undefined;
}

/**
 * The task a request asks for, if any, as the SDK's Protocol reads it (`isTaskAugmentedRequestParams`,
 * then `params.task`): this server has no task capability, so the SDK refuses such a request.
 */
export const requestedTask = (params: Record<string, unknown> | undefined): unknown =>
  schemas().taskAugmented.safeParse(params).success ? params?.task : undefined;
