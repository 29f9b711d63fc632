/**
 * A thin typed client of the Workspace Service: openapi-fetch over the types openapi-typescript
 * generates from openapi.json (client/schema.d.ts, written by `npm ci`; `npm run openapi` refreshes both). Every
 * path, parameter, body and answer is typed from the document; this file only adds the bearer
 * token and the API version to each request.
 */
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

export interface WorkspaceClientOptions {
  /** The API's base URL: http://127.0.0.1:3000 locally, the stack's `ApiUrl` output deployed. */
  baseUrl: string;
  /** A bearer JWT, or a function that returns a current one (called per request). */
  token: string | (() => string | Promise<string>);
  /** The major API version to pin (`Endless-Api-Version`); 1 by default. */
  apiVersion?: string;
  /** Another fetch (a test's, a proxy's). */
  fetch?: typeof globalThis.fetch;
}

export function createWorkspaceClient(options: WorkspaceClientOptions) {
  // Answers typed as JSON: a route that also answers CSV (`Accept: text/csv`) is read as text by asking `parseAs: 'text'`.
  const client = createClient<paths, 'application/json'>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  client.use({
    async onRequest({ request }) {
      const token = typeof options.token === 'function' ? await options.token() : options.token;
      request.headers.set('Authorization', `Bearer ${token}`);
      request.headers.set('Endless-Api-Version', options.apiVersion ?? '1');
      return request;
    },
  });
  return client;
}

export type WorkspaceClient = ReturnType<typeof createWorkspaceClient>;
