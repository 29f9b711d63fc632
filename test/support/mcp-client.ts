/**
 * The MCP SDK's client, as an agent's host runs it, for tests that talk to our /mcp.
 *
 * The client compiles every tool's outputSchema with Ajv on each tools/list (52 schemas), and
 * the tests connect a client per test: those compilations were 2.5 CPU-s of one integration
 * worker's profile. Here they are compiled once per worker process, by the SDK's own validator
 * (same Ajv, same options, without Ajv's optimizing pass: ./ajv.ts), and reused for a schema of
 * the same JSON text. What the client checks is unchanged.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { mcpSdkAjv } from './ajv.ts';

/** Outlives this module, which an integration worker evaluates afresh for each file (fresh-file.ts). */
const VALIDATORS = Symbol.for('workspace-service.test.mcp-client-validators');
const worker = globalThis as typeof globalThis & { [VALIDATORS]?: Map<string, JsonSchemaValidator<unknown>> };
worker[VALIDATORS] ??= new Map();
const compiled = worker[VALIDATORS];

const sdkValidator = new AjvJsonSchemaValidator(mcpSdkAjv());
const compiledOnce: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const key = JSON.stringify(schema);
    let validate = compiled.get(key);
    if (!validate) {
      validate = sdkValidator.getValidator(schema);
      compiled.set(key, validate);
    }
    return validate as JsonSchemaValidator<T>;
  },
};

/** A client named `name`, not yet connected. */
export const mcpClient = (name = 'test-agent'): Client => new Client({ name, version: '1.0.0' }, { jsonSchemaValidator: compiledOnce });
