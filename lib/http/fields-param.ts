// Apart from params.ts: only the run, the quote and the job creation take `fields`.
import * as z from 'zod/mini';
import { MAX_FIELD_PATHS, MAX_FIELDS_CHARS } from '../social/fields.ts';

/**
 * `fields` as a request carries it: a string, checked against the operation's output schema by
 * the domain (lib/social/fields.ts), where the operation is known. The bounds are stated here for
 * the API description; the domain enforces them, with the same issues for REST and MCP.
 */
export const fieldsParam = (description: string) =>
  z.string().register(z.globalRegistry, { description, maxLength: MAX_FIELDS_CHARS, examples: ['items.*.id,items.*.text'] });

/** What `fields` does to an answer, for the run's parameter and the jobs' body field. */
export const FIELDS_RULE = `Comma-separated dotted paths into the operation's output schema, \`*\` standing for every element of an array (\`items.*.id,items.*.text\`; \`items.*\` keeps whole elements, a path that ends at an array keeps it whole). The answer is a subset of the output schema: only these paths, in the output's shape and order, so properties the schema marks required are absent when not asked for, paging fields (\`next_cursor\`, \`has_more\`) included; a value null along a path stays null. At most ${MAX_FIELD_PATHS} paths and ${MAX_FIELDS_CHARS} characters, spaces around paths ignored; an empty path, a field the schema does not have, an array entered without \`*\` or \`*\` on something else is a 400 \`validation_failed\` naming \`fields\` and the path, before anything is charged.`;
