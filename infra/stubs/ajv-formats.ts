/** Bundled in place of `ajv-formats`, with infra/stubs/ajv.ts (see there). */
export default function addFormats(): never {
  throw new Error('ajv-formats is left out of the Lambda bundles (infra/bundling.ts)');
}
