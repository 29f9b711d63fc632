/**
 * Bundled in place of the `ajv` package (infra/bundling.ts, `aliases`). The MCP SDK's `Server`
 * imports Ajv statically for one job this service never gives it (checking an elicitation
 * answer against a JSON Schema), and lib/mcp/server.ts hands it another validator; Ajv and its
 * formats would add 133 KB and about a tenth of the bare client's load time to every cold start
 * of the MCP function. Should anything construct it after all, it says so.
 */
export default class Ajv {
  constructor() {
    throw new Error('ajv is left out of the Lambda bundles (infra/bundling.ts): give the MCP Server a jsonSchemaValidator');
  }
}
