import * as z from 'zod/mini';
import { listEvents } from '../lib/billing/events.ts';
import { billingEventSchema } from '../lib/db/billing-events.ts';
import { baseUrl } from '../lib/http/base-url.ts';
import { CSV_CONTENT_TYPE, csvText, wantsCsv } from '../lib/http/csv.ts';
import { endpoint, Reply, TextBody } from '../lib/http/endpoint.ts';
import { integerParam, organizationId, pageCursor } from '../lib/http/params.ts';

/** The 200 body (for the OpenAPI document). */
export const responseSchema = z.object({
  events: z.array(billingEventSchema),
  next_cursor: z.nullable(z.string()),
  has_more: z.boolean(),
});

const CSV_COLUMNS = ['id', 'type', 'title', 'description', 'created_at', 'amount', 'currency', 'metadata'] as const;

/** The CSV alternative of the 200 body (lib/openapi/document.ts). */
export const responseAlternatives = {
  'text/csv': {
    schema: {
      type: 'string',
      description: `RFC 4180, CRLF line ends: a header row \`${CSV_COLUMNS.join(',')}\`, then one row per event of the same page the JSON answer gives (\`metadata\` as a JSON object in its cell); \`Link: <…>; rel="next"\` names the next page while more remain.`,
    },
    example:
      'id,type,title,description,created_at,amount,currency,metadata\r\nevt_5f0c6a1e-9b1d-4c2e-8f3a-2d7b6e4a9c10,social_operation.charged,x_profile,x_profile run by user_demo_editor,2025-01-31T12:00:00.000Z,-1,credits,"{""operation"":""x_profile""}"\r\n',
  },
};
export const responseHeaders = ['Link'];

/** GET /organizations/{organization_id}/billing/events — owners only, newest first, paged by `cursor`. */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({ organization_id: organizationId }),
      query: z.object({ days: integerParam(1, 30, 30), limit: integerParam(1, 100, 25), cursor: z.optional(pageCursor) }),
    },
  },
  async ({ path, query }, context, event) => {
    const page = await listEvents(context.caller, path.organization_id, query);
    const vary = { Vary: 'Accept' };
    if (!wantsCsv(event.headers?.accept)) return new Reply(page, vary);
    const rows = page.events.map((each) =>
      CSV_COLUMNS.map((column) => (column === 'metadata' ? JSON.stringify(each.metadata) : each[column])),
    );
    const next: Record<string, string> =
      page.next_cursor === null
        ? {}
        : {
            Link: `<${baseUrl(event)}/organizations/${encodeURIComponent(path.organization_id)}/billing/events?${new URLSearchParams({
              days: String(query.days),
              limit: String(query.limit),
              cursor: page.next_cursor,
            })}>; rel="next"`,
          };
    return new Reply(new TextBody(csvText(CSV_COLUMNS, rows), CSV_CONTENT_TYPE), { ...vary, ...next });
  },
);
