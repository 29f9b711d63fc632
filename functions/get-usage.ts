import * as z from 'zod/mini';
import { CSV_CONTENT_TYPE, csvText, wantsCsv } from '../lib/http/csv.ts';
import { endpoint, Reply, TextBody } from '../lib/http/endpoint.ts';
import { atMost, organizationId } from '../lib/http/params.ts';
import { GROUP_KEYS, usageRows } from '../lib/usage/report.ts';
import { getUsage } from '../lib/usage/usage.ts';

const INSTANT_RULE = 'must be an ISO 8601 UTC timestamp such as 2025-01-31T00:00:00Z';
const instant = (what: string) =>
  z.iso
    .datetime({ error: INSTANT_RULE })
    .check(atMost(40, INSTANT_RULE))
    .register(z.globalRegistry, {
      description: `${what}: an ISO 8601 timestamp in UTC (\`Z\`), on a boundary of the granularity (a UTC hour, or a UTC day)`,
      examples: ['2025-01-01T00:00:00Z'],
    });

const groupValue = z.nullable(z.string());
const result = z.object({
  operation: z.optional(z.string()),
  network: z.optional(groupValue),
  member: z.optional(groupValue),
  api_key: z.optional(groupValue),
  runs: z.int(),
  charged: z.int(),
  refunded: z.int(),
  net: z.int(),
});

/** The 200 body (for the OpenAPI document); `Accept: text/csv` gets the same rows as CSV. */
export const responseSchema = z.object({
  from: z.iso.datetime(),
  to: z.iso.datetime(),
  granularity: z.enum(['hour', 'day']),
  group_by: z.array(z.enum(GROUP_KEYS)),
  buckets: z.array(z.object({ start: z.iso.datetime(), end: z.iso.datetime(), results: z.array(result) })),
});

/** The CSV alternative of the 200 body (lib/openapi/document.ts). */
export const responseAlternatives = {
  'text/csv': {
    schema: {
      type: 'string',
      description:
        'RFC 4180, CRLF line ends: a header row `start,end,<group_by keys>,runs,charged,refunded,net`, then one row per result of every bucket, oldest first; null is an empty cell.',
    },
    example:
      'start,end,api_key,runs,charged,refunded,net\r\n2025-01-01T00:00:00.000Z,2025-01-02T00:00:00.000Z,key_0123456789abcdef0123456789abcdef,3,3,1,2\r\n',
  },
};

/** GET /organizations/{organization_id}/usage — credits by hour or day, grouped; owners the organization, others their own runs. */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({ organization_id: organizationId }),
      query: z.object({
        from: instant('The first bucket'),
        to: instant('The end of the last bucket (excluded); at most 168 hours or 93 days after `from`'),
        granularity: z._default(z.enum(['hour', 'day']), 'day'),
        group_by: z.optional(
          z
            .string()
            .check(atMost(100, 'must be at most 100 characters'))
            .register(z.globalRegistry, {
              description: `Keys to group by, comma-separated, no repeats: any of ${GROUP_KEYS.join(', ')}; results carry them in this order`,
              examples: ['operation,api_key'],
            }),
        ),
      }),
    },
  },
  async ({ path, query }, context, event) => {
    const report = await getUsage(context.caller, path.organization_id, query);
    const vary = { Vary: 'Accept' };
    if (!wantsCsv(event.headers?.accept)) return new Reply(report, vary);
    const { header, rows } = usageRows(report);
    return new Reply(new TextBody(csvText(header, rows), CSV_CONTENT_TYPE), vary);
  },
);
