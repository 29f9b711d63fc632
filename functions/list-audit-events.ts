import * as z from 'zod/mini';
import { AUDIT_ACTOR_TYPES, AUDIT_EVENT_TYPES, AUDIT_TARGET_TYPES, type AuditEvent } from '../lib/db/audit-events.ts';
import { baseUrl } from '../lib/http/base-url.ts';
import { CSV_CONTENT_TYPE, csvText, wantsCsv } from '../lib/http/csv.ts';
import { endpoint, Reply, TextBody } from '../lib/http/endpoint.ts';
import { atMost, integerParam, organizationId, pageCursor } from '../lib/http/params.ts';
import { listAuditLog, MAX_TYPES } from '../lib/workspace/audit-log.ts';

const change = z.object({ before: z.unknown(), after: z.unknown() });

/** One audit event exactly as the API shows it. */
const auditEventSchema = z.object({
  id: z.string().register(z.globalRegistry, { description: '`aud_…`', examples: ['aud_0194c2d3e4f5a1b2c3d4e5f6a7b8c9d0e1f2'] }),
  organization_id: z.string(),
  type: z.enum(AUDIT_EVENT_TYPES),
  occurred_at: z.iso.datetime().register(z.globalRegistry, { description: "the change's instant, ISO 8601 UTC with milliseconds" }),
  actor: z.object({
    type: z.enum(AUDIT_ACTOR_TYPES),
    id: z.string().register(z.globalRegistry, {
      description:
        "a user's `sub`; a key's id; the operator's AWS principal ARN (locally the OS user name); for `system`, the mechanism (`oauth`)",
    }),
    client_id: z
      .nullable(z.string())
      .register(z.globalRegistry, { description: 'the OAuth client of a key minted by a consent, else null' }),
  }),
  target: z.object({ type: z.enum(AUDIT_TARGET_TYPES), id: z.string() }),
  changes: z.nullable(z.record(z.string(), change)).register(z.globalRegistry, {
    description: 'on events that modify an object, exactly the fields whose value changed, each `{ before, after }`; else null',
  }),
  details: z.record(z.string(), z.unknown()),
  request_id: z
    .nullable(z.string())
    .register(z.globalRegistry, { description: 'the `x-request-id` of the answer to the change; null for the operator and the system' }),
  source_ip: z
    .nullable(z.string())
    .register(z.globalRegistry, { description: "the change's address, as `allowed_ips` reads it; null for the operator and the system" }),
});

/** The 200 body (for the OpenAPI document). */
export const responseSchema = z.object({
  events: z.array(auditEventSchema),
  next_cursor: z.nullable(z.string()),
  has_more: z.boolean(),
});

const CSV_COLUMNS = [
  'id',
  'occurred_at',
  'type',
  'actor_type',
  'actor_id',
  'actor_client_id',
  'target_type',
  'target_id',
  'changes',
  'details',
  'request_id',
  'source_ip',
] as const;

/** The CSV alternative of the 200 body (lib/openapi/document.ts). */
export const responseAlternatives = {
  'text/csv': {
    schema: {
      type: 'string',
      description: `RFC 4180, CRLF line ends: a header row \`${CSV_COLUMNS.join(',')}\`, then one row per event of the same page the JSON answer gives (\`changes\` and \`details\` as JSON in their cells, null as an empty cell); \`Link: <…>; rel="next"\` names the next page while more remain.`,
    },
    example:
      'id,occurred_at,type,actor_type,actor_id,actor_client_id,target_type,target_id,changes,details,request_id,source_ip\r\naud_0194c2d3e4f5a1b2c3d4e5f6a7b8c9d0e1f2,2025-01-31T12:00:00.000Z,api_key.revoked,user,user_demo_owner,,api_key,key_0123456789abcdef0123456789abcdef,,"{""name"":""ci"",""created_via"":""api"",""client_id"":null}",5f0c6a1e-9b1d-4c2e-8f3a-2d7b6e4a9c10,203.0.113.7\r\n',
  },
};
export const responseHeaders = ['Link'];

const INSTANT_RULE = 'must be an ISO 8601 UTC timestamp such as 2025-01-31T00:00:00Z';
const instant = (description: string) =>
  z.iso
    .datetime({ error: INSTANT_RULE })
    .check(atMost(40, INSTANT_RULE))
    .register(z.globalRegistry, { description, examples: ['2025-01-01T00:00:00Z'] });

const ID_RULE = 'must be 1 to 255 characters';
const exactId = (description: string) =>
  z.string().check(atMost(255, ID_RULE), z.minLength(1, ID_RULE)).register(z.globalRegistry, { description });

const cell = (value: unknown): string | number | null =>
  value === null || value === undefined ? null : typeof value === 'object' ? JSON.stringify(value) : (value as string | number);

const rowOf = (event: AuditEvent): (string | number | null)[] =>
  [
    event.id,
    event.occurred_at,
    event.type,
    event.actor.type,
    event.actor.id,
    event.actor.client_id,
    event.target.type,
    event.target.id,
    event.changes,
    event.details,
    event.request_id,
    event.source_ip,
  ].map(cell);

/** GET /organizations/{organization_id}/audit-events — owners only, newest first, every filter applied, paged by `cursor`. */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({ organization_id: organizationId }),
      query: z.object({
        type: z.optional(
          z
            .string()
            .check(atMost(MAX_TYPES * 30, `must name 1 to ${MAX_TYPES} types`), z.minLength(1, `must name 1 to ${MAX_TYPES} types`))
            .register(z.globalRegistry, {
              description: `1 to ${MAX_TYPES} event types, comma-separated, of: ${AUDIT_EVENT_TYPES.join(', ')}`,
              examples: ['api_key.created,api_key.revoked'],
            }),
        ),
        actor_id: z.optional(exactId("only the events of this actor (`actor.id`, exact): a user's sub, a key's id, an operator's ARN")),
        target_id: z.optional(exactId('only the events of this target (`target.id`, exact)')),
        from: z.optional(instant('only events at or after this instant (inclusive)')),
        to: z.optional(instant('only events before this instant (exclusive); after `from`')),
        limit: integerParam(1, 100, 25),
        cursor: z.optional(pageCursor),
      }),
    },
  },
  async ({ path, query }, context, event) => {
    const page = await listAuditLog(context.caller, path.organization_id, query);
    const vary = { Vary: 'Accept' };
    if (!wantsCsv(event.headers?.accept)) return new Reply(page, vary);
    const { cursor: _cursor, ...filters } = query;
    const given = Object.entries({ ...filters, limit: String(query.limit) }).filter(([, value]) => value !== undefined) as [
      string,
      string,
    ][];
    const next: Record<string, string> =
      page.next_cursor === null
        ? {}
        : {
            Link: `<${baseUrl(event)}/organizations/${encodeURIComponent(path.organization_id)}/audit-events?${new URLSearchParams([
              ...given,
              ['cursor', page.next_cursor],
            ])}>; rel="next"`,
          };
    return new Reply(new TextBody(csvText(CSV_COLUMNS, page.events.map(rowOf)), CSV_CONTENT_TYPE), { ...vary, ...next });
  },
);
