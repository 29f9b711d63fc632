/**
 * Finding and validating an operation, and whether an organization may run it: shared by the
 * listing, the run path and the MCP tools, so that what is listed is exactly what runs.
 */
import { issuesOf, unknownOperation, validationFailed } from '../errors.ts';
import { CATALOG, descriptor, OPERATION_NAMES, type OperationDefinition } from './catalog/index.ts';
import { closestName } from './closest-name.ts';
import { type FieldsParam, parseFields, type Selection } from './fields.ts';

export { isEnabled } from './enabled.ts';

/** The operation named `name`, or 404 naming it, with the closest real name when it looks like a typo. */
export function findOperation(name: string): OperationDefinition {
  const operation = CATALOG.get(name);
  if (!operation) throw unknownOperation(name, closestName(name, OPERATION_NAMES));
  return operation;
}

/** The operation's input, validated and with its defaults applied; 400 naming each bad field otherwise. */
export function validateOperationInput(operation: OperationDefinition, body: unknown): Record<string, unknown> {
  const parsed = operation.input.safeParse(body);
  if (!parsed.success) throw validationFailed(issuesOf('body', parsed.error, body));
  return parsed.data as Record<string, unknown>;
}

/**
 * The `fields` of a request checked against the operation's output schema (the descriptor's JSON
 * Schema, the one the listing publishes); 400 naming each bad path. Undefined: the whole output.
 */
export const selectFields = (operation: OperationDefinition, fields: FieldsParam | undefined): Selection | undefined =>
  fields === undefined ? undefined : parseFields(fields, descriptor(operation).output_schema);
