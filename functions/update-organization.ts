import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { jsonBody } from '../lib/http/json-body.ts';
import { organizationId } from '../lib/http/params.ts';
import { NETWORKS } from '../lib/model.ts';
import { confirmAboveField, limitField } from '../lib/workspace/limit-fields.ts';
import { changeWorkspace } from '../lib/workspace/organization.ts';

export { settingsSchema as responseSchema } from '../lib/workspace/schemas.ts';

const body = z
  .strictObject({
    spending_limit: limitField('monthly (UTC) spending limit of the organization in credits; null for none'),
    daily_limit: limitField('daily (UTC) spending limit of the organization in credits; null for none'),
    confirm_above: confirmAboveField(
      'MCP tool calls quoted above this many credits run only after consent (docs/mcp.md, "Consent before an expensive call"); null: never ask',
    ),
    networks: z.optional(
      z
        .array(z.enum(NETWORKS))
        .check(z.minLength(1, 'must name at least one network'), z.maxLength(NETWORKS.length * 2))
        .register(z.globalRegistry, {
          description: 'the networks the organization may use (a non-empty subset of the seven)',
        }),
    ),
  })
  .check(
    z.refine(
      (value) =>
        value.spending_limit !== undefined ||
        value.daily_limit !== undefined ||
        value.networks !== undefined ||
        value.confirm_above !== undefined,
      'must change spending_limit, daily_limit, confirm_above or networks (one or more)',
    ),
  );

/** PATCH /organizations/{organization_id} — owners; other members 403, anyone else 404. */
export const handler = endpoint(
  { schemas: { path: z.object({ organization_id: organizationId }), body }, jsonBody },
  async ({ path, body }, context) => changeWorkspace(context.caller, path.organization_id, body),
);
