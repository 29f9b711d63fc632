/**
 * The tests' Ajv: draft 2020-12 (the catalog's schemas, the OpenAPI document's) or Ajv's default
 * draft (the MCP SDK's validator), with the standard formats, and without Ajv's optimizing pass
 * over the code it generates. The tests compile hundreds of large schemas (the 52 operations'
 * outputs, in two renderings, in several files) and validate a few values with each, so the
 * compile is what costs: the 104 output schemas compiled warm 1.22-1.28 s of CPU with the pass and
 * 0.58-0.69 s without (`.tmp`-style script, three rounds). What a validator accepts is the same
 * either way: the pass only removes code that cannot change the result.
 */
import { Ajv, type Options } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const WITHOUT_OPTIMIZING: Options = { code: { optimize: false } };

/** An Ajv for draft 2020-12 with `options`; the standard formats unless `formats` is false. */
export function testAjv(options: Options, { formats = true }: { formats?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({ ...options, ...WITHOUT_OPTIMIZING });
  if (formats) addFormats.default(ajv);
  return ajv;
}

/** The MCP SDK's own Ajv (its `ajv-provider`: Ajv's default draft, these options, the formats), not optimizing. */
export function mcpSdkAjv(): Ajv {
  const ajv = new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true, ...WITHOUT_OPTIMIZING });
  addFormats.default(ajv);
  return ajv;
}
