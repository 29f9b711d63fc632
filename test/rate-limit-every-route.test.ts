/**
 * The rate limit belongs to the middleware chain, not to handlers: every route of the route
 * table that needs a token answers 429 at the limit + 1, whatever its handler does, and so
 * does a handler written without a thought for rate limits.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { workspace } from './support/fixtures.ts';
import { call } from './support/http.ts';
import { handlerOf, sampleRequest, tokenRoutes } from './support/routes.ts';
import { tokenFor } from './support/tokens.ts';

// One: the request at the limit is served and the next refused, at a third fewer calls of every handler than 2.
const LIMIT = 1;
process.env.RATE_LIMIT_REQUESTS = String(LIMIT);
// A day-long window (aligned to UTC midnight) so no test straddles a window boundary.
process.env.RATE_LIMIT_WINDOW_SECONDS = '86400';

const { endpoint } = await import('../lib/http/endpoint.ts');
const { db } = await import('../lib/db/client.ts');
const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
const { config } = await import('../lib/config.ts');

describe('every route that needs a token answers 429 at the limit + 1', () => {
  it.each(tokenRoutes())('%s', async (_name, route) => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 100 });
    const handler = await handlerOf(route);
    const request = sampleRequest(route, orgId, tokenFor(users.owner));

    // Act
    const answers = [];
    for (let i = 0; i <= LIMIT; i += 1) answers.push(await call(handler, request));

    // Assess: served (whatever the answer) up to the limit, then refused
    expect(answers.slice(0, LIMIT).map((answer) => answer.status)).not.toContain(429);
    expect(answers[LIMIT]!.status).toBe(429);
    expect(answers[LIMIT]!.body.code).toBe('rate_limited');
  });
});

describe('a handler that never mentions the rate limit', () => {
  const writes: string[] = [];
  // Reads, then writes: the write must never happen for a caller over the limit.
  const probe = endpoint({ schemas: {} }, async (_input, context) => {
    const id = randomUUID();
    await db().send(new PutCommand({ TableName: config().tableName, Item: { PK: `PROBE#${id}`, SK: context.caller.userId } }));
    writes.push(id);
    return { ok: true };
  });

  it('is limited too, and its writes wait for the verdict', async () => {
    const { users } = await workspace();
    const token = tokenFor(users.owner);
    const statuses = [];
    for (let i = 0; i < LIMIT + 4; i += 1) statuses.push((await call(probe, { url: '/probe', token, contract: false })).status);
    expect(statuses).toEqual([200, 429, 429, 429, 429]);
    expect(writes).toHaveLength(LIMIT);
  });
});
