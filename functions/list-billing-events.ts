import * as z from 'zod/mini';
import { listBillingEvents } from '../lib/db/billing-events.ts';
import { getMembership } from '../lib/db/memberships.ts';
import { notFound, onlyOwnersListEvents } from '../lib/errors.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import { integerParam, organizationId } from '../lib/http/params.ts';

const DAY_MS = 86_400_000;

/** GET /organizations/{organization_id}/billing/events — owners only, newest first. */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({ organization_id: organizationId }),
      query: z.object({ days: integerParam(1, 30, 30), limit: integerParam(1, 100, 25) }),
    },
  },
  async ({ path, query }, context) => {
    const orgId = path.organization_id;
    const membership = await getMembership(orgId, context.caller.userId);
    if (!membership) throw notFound();
    if (membership.role !== 'owner') throw onlyOwnersListEvents();
    const since = new Date(Date.now() - query.days * DAY_MS);
    return { events: await listBillingEvents(orgId, since, query.limit) };
  },
);
