/**
 * The output shapes many catalog operations share (a post, a profile, a comment, …), named once
 * under `components.schemas`. The catalog's descriptors stay self-contained (the listing and MCP
 * hand each schema out on its own), so the document factors them afterwards: wherever an
 * operation's output schema holds a subschema equal to a named shape's, it refers to the
 * component instead. Readers of the document, and the client types generated from it, then meet
 * one `Post` instead of fifty copies of its fields.
 */
import * as z from 'zod/mini';
import * as shapes from '../social/catalog/shapes.ts';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document walked and built by path, whose shape JSON Schema (not TypeScript) describes
type Json = Record<string, any>;

/**
 * Largest first: a post is matched whole before its author is. `Story` extends the post with
 * its expiry (a flat object of its own, not an `allOf`), so it is named on its own.
 */
const NAMED_SHAPES: Readonly<Record<string, () => z.core.$ZodType>> = {
  Story: shapes.story,
  Post: shapes.post,
  Comment: shapes.comment,
  Profile: shapes.profile,
  Company: shapes.company,
  Group: shapes.group,
  Highlight: shapes.highlight,
  Playlist: shapes.playlist,
  Trend: shapes.trend,
  Author: shapes.author,
  Media: shapes.media,
  Metrics: shapes.metrics,
  Music: shapes.music,
};

/** The same conversion as the descriptors' (scripts/catalog-descriptors.ts), without the dialect line. */
function outputSchema(schema: z.core.$ZodType): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) as Json;
  return rest;
}

/** JSON text with object keys sorted: two schemas are the same shape when these are equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const entries = Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonical((value as Json)[key])}`);
  return `{${entries.join(',')}}`;
}

export class SharedSchemas {
  private readonly byShape = new Map<string, string>();
  private readonly schemas: Json = {};

  constructor() {
    for (const [name, shape] of Object.entries(NAMED_SHAPES)) {
      const schema = outputSchema(shape());
      this.byShape.set(canonical(schema), name);
      this.schemas[name] = schema;
    }
  }

  /** `schema` with every subschema that is a named shape replaced by a reference to it. */
  factor(schema: unknown, isComponent?: string): unknown {
    if (Array.isArray(schema)) return schema.map((item) => this.factor(item));
    if (schema === null || typeof schema !== 'object') return schema;
    const name = this.byShape.get(canonical(schema));
    if (name && name !== isComponent) return { $ref: `#/components/schemas/${name}` };
    return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, this.factor(value)]));
  }

  /** The named shapes, each factored in turn (a post refers to its author, media, metrics and music). */
  components(): Json {
    return Object.fromEntries(Object.entries(this.schemas).map(([name, schema]) => [name, this.factor(schema, name)]));
  }
}
