/**
 * The reference page's scripts and style sheet: Swagger UI's standalone build, served by the
 * service itself (GET /docs/{asset}), never from a CDN. Pure data: the route table reads it
 * (the stack copies each `source` next to the function's bundle), and so does the function.
 */
export interface DocsAsset {
  /** The `{asset}` of GET /docs/{asset}. */
  name: string;
  /** Package path, resolved from node_modules locally and copied beside the bundle when deployed. */
  source: string;
  contentType: string;
}

export const DOCS_ASSETS: readonly DocsAsset[] = [
  { name: 'swagger-ui-bundle.js', source: 'swagger-ui-dist/swagger-ui-bundle.js', contentType: 'text/javascript; charset=utf-8' },
  { name: 'swagger-ui.css', source: 'swagger-ui-dist/swagger-ui.css', contentType: 'text/css; charset=utf-8' },
];
