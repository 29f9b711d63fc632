/** The ScrapeCreators mappings run without HTTP, for the per-network translation tests. */
import { CATALOG, type OperationName } from '../../../lib/social/catalog/index.ts';
import { MAPPINGS } from '../../../lib/social/providers/scrapecreators/index.ts';
import { VALID_INPUTS } from '../social.ts';
import { envelope, FIXTURES } from './index.ts';

/**
 * One operation's mapping as the http provider runs it: the input through the catalog's input
 * schema (defaults applied), the query built from it, the enveloped payload (by default the
 * fixture of the operation's path) translated; `issues` are what the catalog's output schema
 * says of the output (none expected).
 */
export function runMapping(operation: OperationName, options: { input?: Record<string, unknown>; payload?: object } = {}) {
  const definition = CATALOG.get(operation)!;
  const mapping = MAPPINGS[operation]!;
  const input = definition.input.parse(options.input ?? VALID_INPUTS[operation]);
  const output = mapping.translate(envelope(options.payload ?? FIXTURES[mapping.path]!), input);
  const checked = definition.output.safeParse(output);
  return { path: mapping.path, params: mapping.params(input), output, issues: checked.success ? [] : checked.error.issues };
}
