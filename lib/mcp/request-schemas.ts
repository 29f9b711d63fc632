/**
 * The requests this server answers, as the MCP SDK 1.32.2 validates each before its handler runs
 * (types.js `InitializeRequestSchema`, `ListToolsRequestSchema`, `CallToolRequestSchema`), rebuilt
 * with zod/mini in the same shape and key order: invalid params are answered with the text of
 * zod's error (its issues as JSON), which must read as the SDK's does. `ping` has none here: its
 * schema asks nothing the message schema (lib/mcp/messages.ts) has not already checked.
 * test/mcp/schemas.unit.test.ts compares each with the SDK's on generated requests.
 */
import * as z from 'zod/mini';
import { once, requestMeta, taskMetadata } from './messages.ts';

/** The SDK's AssertObjectSchema: any object (arrays and functions included), not null. */
const anObject = once(() => z.custom<object>((value) => value !== null && (typeof value === 'object' || typeof value === 'function')));
const anyRecord = () => z.record(z.string(), z.unknown());

/** ImplementationSchema: who the client is (`clientInfo`). */
const implementation = once(() =>
  z.object({
    name: z.string(),
    title: z.optional(z.string()),
    icons: z.optional(
      z.array(
        z.object({
          src: z.string(),
          mimeType: z.optional(z.string()),
          sizes: z.optional(z.array(z.string())),
          theme: z.optional(z.enum(['light', 'dark'])),
        }),
      ),
    ),
    version: z.string(),
    websiteUrl: z.optional(z.string()),
    description: z.optional(z.string()),
  }),
);

/** ElicitationCapabilitySchema: `{}` stands for `{ form: {} }` (the SDK's preprocess). */
const elicitation = () =>
  z.pipe(
    z.transform((value: unknown) =>
      value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0 ? { form: {} } : value,
    ),
    z.intersection(
      z.object({
        form: z.optional(z.intersection(z.object({ applyDefaults: z.optional(z.boolean()) }), anyRecord())),
        url: z.optional(anObject()),
      }),
      z.optional(anyRecord()),
    ),
  );

/** ClientCapabilitiesSchema. */
const clientCapabilities = () => {
  const optionalObject = z.optional(anObject());
  return z.object({
    experimental: z.optional(z.record(z.string(), anObject())),
    sampling: z.optional(z.object({ context: optionalObject, tools: optionalObject })),
    elicitation: z.optional(elicitation()),
    roots: z.optional(z.object({ listChanged: z.optional(z.boolean()) })),
    tasks: z.optional(
      z.looseObject({
        list: optionalObject,
        cancel: optionalObject,
        requests: z.optional(
          z.looseObject({
            sampling: z.optional(z.looseObject({ createMessage: optionalObject })),
            elicitation: z.optional(z.looseObject({ create: optionalObject })),
          }),
        ),
      }),
    ),
    extensions: z.optional(z.record(z.string(), anObject())),
  });
};

export const initializeRequest = once(() =>
  z.object({
    method: z.literal('initialize'),
    params: z.object({
      _meta: z.optional(requestMeta()),
      protocolVersion: z.string(),
      capabilities: clientCapabilities(),
      clientInfo: implementation(),
    }),
  }),
);

/** The SDK's transport skips the MCP-Protocol-Version check for a valid initialize (request or notification alike). */
export const isInitializeRequest = (message: unknown): boolean =>
  (message as { method?: unknown }).method === 'initialize' && initializeRequest().safeParse(message).success;

export const listToolsRequest = once(() =>
  z.object({
    method: z.literal('tools/list'),
    params: z.optional(z.object({ _meta: z.optional(requestMeta()), cursor: z.optional(z.string()) })),
  }),
);

export const callToolRequest = once(() =>
  z.object({
    method: z.literal('tools/call'),
    params: z.object({
      _meta: z.optional(requestMeta()),
      task: z.optional(taskMetadata()),
      name: z.string(),
      arguments: z.optional(anyRecord()),
    }),
  }),
);
