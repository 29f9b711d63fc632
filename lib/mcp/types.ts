/**
 * The MCP shapes this server sends, as far as it uses them: a tool of tools/list and the result of
 * tools/call. Narrower than the MCP SDK's types (only text content: the only kind sent); the
 * tests check that each is assignable to the SDK's (test/mcp/tools.unit.test.ts).
 */

/** A JSON Schema of an object: a tool's input and output. */
export interface ObjectSchema {
  type: 'object';
  properties?: Record<string, object>;
  required?: string[];
  [keyword: string]: unknown;
}

/** An icon a client may show (MCP 2025-11-25 and later). */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
}

export interface Tool {
  name: string;
  title?: string;
  icons?: Icon[];
  description?: string;
  inputSchema: ObjectSchema;
  outputSchema?: ObjectSchema;
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  _meta?: Record<string, unknown>;
}

export type TextContent = { type: 'text'; text: string };

// A type, not an interface: the SDK's result type has an index signature, which only a type alias meets implicitly.
export type CallToolResult = {
  _meta?: Record<string, unknown>;
  content: TextContent[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/**
 * A result in the key order of the SDK's `CallToolResultSchema` (`_meta`, `content`,
 * `structuredContent`, `isError`): the SDK's Server answered its parsed copy of the handler's
 * result, and the bytes of our answer are the SDK's.
 */
export const inSchemaOrder = ({ _meta, content, structuredContent, isError }: CallToolResult): CallToolResult => ({
  ...(_meta !== undefined && { _meta }),
  content,
  ...(structuredContent !== undefined && { structuredContent }),
  ...(isError !== undefined && { isError }),
});
