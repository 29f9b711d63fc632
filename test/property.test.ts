/**
 * Property-based: whatever a caller sends, the answer is a success or a 4xx of the documented
 * shape, never a 500, and an error body stays small. Inputs for every route (odd ids, query
 * strings, version headers, bodies) and for every one of the 52 operations (valid inputs, and
 * almost-valid ones: a field dropped, a field replaced by any JSON value, an unknown key, any
 * JSON value as the whole body). Fixed seed; FUZZ_RUNS=<n> runs longer (npm run fuzz).
 * `npm test` tries 8 inputs per route and 3 per operation, from the same seed;
 * `npm run test:long` 15 and 6 (test/support/depth.ts): in full, a thousand requests through
 * every handler, about 4 CPU-s of `npm test`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from '../lib/social/catalog/index.ts';
import { atDepth } from './support/depth.ts';
import { workspace } from './support/fixtures.ts';
import { fuzzRuns } from './support/fuzz.ts';
import { type Answer, call } from './support/http.ts';
import { handlerOf, tokenRoutes } from './support/routes.ts';
import { runUrl, VALID_INPUTS } from './support/social.ts';
import { tokenFor } from './support/tokens.ts';

process.env.SOCIAL_PROVIDER ??= 'sample';
process.env.RATE_LIMIT_REQUESTS = '1000000';

const SEED = 20261122;
const MAX_ERROR_BYTES = 4_096;
const { orgId, users } = await workspace({ credits: 1_000_000 });
const token = tokenFor(users.owner);

/** Every answer the property allows: a 2xx, or a documented 4xx error body of bounded size. */
function expectWellFormed(answer: Answer): void {
  expect(answer.status, answer.raw.slice(0, 300)).toBeLessThan(500);
  expect(answer.headers['content-type']).toBe('application/json');
  if (answer.status < 400) return;
  expect(answer.raw.length).toBeLessThan(MAX_ERROR_BYTES);
  // MCP's protocol errors are JSON-RPC error objects (docs/mcp.md); everything else is the error body.
  if (answer.body?.jsonrpc === '2.0') {
    expect(typeof answer.body.error.message).toBe('string');
    return;
  }
  expect(typeof answer.body.code).toBe('string');
  expect(typeof answer.body.message).toBe('string');
  expect(answer.body.request_id).toBe(answer.headers['x-request-id']);
  if (answer.status === 400 && answer.body.code === 'validation_failed') expect(answer.body.data.issues.length).toBeGreaterThan(0);
}

const tried: Record<string, number> = {};
const count = (name: string) => {
  tried[name] = (tried[name] ?? 0) + 1;
};

const oddText = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('%', '%E0%A4%A', '..', '%2F', 'org_', 'org_a', '00000000-0000-0000-0000-000000000000', ' ', '\u0000', 'a'.repeat(3000)),
);

describe('every route, any path, query and version header', () => {
  it.each(tokenRoutes())('%s answers 2xx or a documented 4xx', async (name, route) => {
    const handler = await handlerOf(route);
    await fc.assert(
      fc.asyncProperty(
        fc.array(oddText, { minLength: 3, maxLength: 3 }),
        fc.array(fc.tuple(fc.constantFrom('organization_id', 'days', 'limit', 'cursor', 'x'), oddText), { maxLength: 4 }),
        fc.option(fc.constantFrom('1', '1.0', '2', 'v1', '1.0.0', '', 'abc'), { nil: undefined }),
        async (segments, query, version) => {
          count(name);
          let i = 0;
          const path = route.path.replace(/\{\w+\}/g, () => encodeURIComponent(segments[i++] ?? ''));
          const search = new URLSearchParams([['organization_id', orgId], ...query]).toString();
          const headers: Record<string, string> = version === undefined ? {} : { 'endless-api-version': version };
          // Odd paths reach the handler directly (API Gateway would not route some of them here), so the
          // contract check of the route's description is off; the shape is checked here.
          expectWellFormed(
            await call(handler, {
              method: route.method === 'ANY' ? 'POST' : route.method,
              url: `${path}?${search}`,
              token,
              headers,
              body: {},
              contract: false,
            }),
          );
        },
      ),
      { seed: SEED, numRuns: fuzzRuns(atDepth(8, 15)) },
    );
  });
});

describe('every operation, valid and almost-valid inputs', () => {
  const jsonValue = fc.jsonValue({ maxDepth: 3 });
  const inputs = (operation: string) => {
    const valid = VALID_INPUTS[operation] ?? {};
    const keys = Object.keys(valid);
    return fc.oneof(
      fc.constant(valid),
      keys.length > 0
        ? fc.constantFrom(...keys).map((key) => Object.fromEntries(Object.entries(valid).filter(([k]) => k !== key)))
        : fc.constant({}),
      keys.length > 0 ? fc.tuple(fc.constantFrom(...keys), jsonValue).map(([key, value]) => ({ ...valid, [key]: value })) : fc.constant({}),
      fc.tuple(fc.string({ maxLength: 20 }), jsonValue).map(([key, value]) => ({ ...valid, [`x_${key}`]: value })),
      jsonValue,
    );
  };

  it.each(OPERATION_NAMES.map((name) => [name]))('%s', async (operation) => {
    const run = await handlerOf({ entry: 'functions/run-social-operation.ts' } as never);
    await fc.assert(
      fc.asyncProperty(inputs(operation), async (body) => {
        count(operation);
        const answer = await call(run, {
          method: 'POST',
          url: runUrl(operation, orgId),
          token: tokenFor(users.editor),
          body: JSON.stringify(body),
        });
        expectWellFormed(answer);
      }),
      { seed: SEED, numRuns: fuzzRuns(atDepth(3, 6)) },
    );
  });

  it('tried inputs on every route and every operation', () => {
    expect(Object.keys(tried)).toHaveLength(tokenRoutes().length + OPERATION_NAMES.length);
    console.info(`property test: ${JSON.stringify(tried)}`);
  });
});
