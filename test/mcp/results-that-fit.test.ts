/**
 * MCP results that fit MCP_MAX_RESULT_CHARS, end to end: the MCP SDK's own client (which checks a
 * result's structuredContent against the tool's outputSchema once it has listed the tools) over the
 * local server, on DynamoDB Local. A page over the limit comes back cut, with its note and `_meta`;
 * the advice works: the same call from the cache with narrower `_fields` is free and whole; a page
 * of get_job over the limit says which `limit` reads it whole.
 */
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getOrganization } from '../../lib/db/organizations.ts';
import { createLocalServer, loadHandlers } from '../../lib/local/server.ts';
import { testAjv } from '../support/ajv.ts';
import { workspace } from '../support/fixtures.ts';
import { drainJobs } from '../support/jobs.ts';
import { mcpClient } from '../support/mcp-client.ts';
import { tokenFor } from '../support/tokens.ts';

const LIMIT = 10_000;
const ajv = testAjv({ strict: false });

const server = createLocalServer(await loadHandlers());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
// Read per call by the MCP function (lib/config.ts), in this process.
beforeEach(() => {
  process.env.MCP_MAX_RESULT_CHARS = String(LIMIT);
});
afterEach(() => {
  delete process.env.MCP_MAX_RESULT_CHARS;
});

async function agent(orgId: string, user: string): Promise<Client> {
  const client = mcpClient();
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp?organization_id=${orgId}`), {
      requestInit: { headers: { Authorization: `Bearer ${tokenFor(user)}` } },
    }),
  );
  return client;
}

type Text = { type: string; text: string };
const texts = (result: Record<string, unknown>) => (result.content as Text[]).map((block) => block.text);

describe('an MCP tool result over MCP_MAX_RESULT_CHARS', () => {
  it('is cut to whole elements that fit, with a note and _meta, valid against the tool’s outputSchema; the advice reads the rest free', async () => {
    // Prepare: listing first makes the SDK client check structuredContent against each outputSchema.
    const { orgId, users } = await workspace({ credits: 5 });
    const client = await agent(orgId, users.editor);
    const { tools } = await client.listTools();
    const outputSchema = tools.find((tool) => tool.name === 'x_user_posts')!.outputSchema!;

    // Act
    const cut = await client.callTool({ name: 'x_user_posts', arguments: { handle: 'nasa', count: 50 } });
    const advised = await client.callTool({
      name: 'x_user_posts',
      arguments: { handle: 'nasa', count: 50, _fields: 'items.*.id,items.*.url,items.*.type' },
      _meta: { max_age: 86_400 },
    });

    // Assess: the cut.
    const [json, note] = texts(cut);
    const meta = cut._meta as Record<string, unknown> & { cut: { kept: number }[]; full_chars: number };
    const kept = meta.cut[0]!.kept;
    expect(json!.length + note!.length).toBeLessThanOrEqual(LIMIT);
    expect(JSON.parse(json!)).toEqual(cut.structuredContent);
    expect(ajv.validate(outputSchema, cut.structuredContent)).toBe(true);
    expect(meta).toMatchObject({
      credits_charged: 1,
      truncated: true,
      full_chars: expect.any(Number),
      max_chars: LIMIT,
      cut: [{ path: 'items', kept, total: 50, unit: 'elements' }],
      rest: expect.stringContaining('"_meta": {"max_age": 86400}'),
    });
    expect(meta.full_chars).toBeGreaterThan(LIMIT);
    expect((cut.structuredContent as { items: unknown[] }).items).toHaveLength(kept);
    expect(kept).toBeGreaterThan(0);
    expect(note).toMatch(
      /^\[This result was cut to fit the 10,000-character limit of a tool result; the whole result is [\d,]+ characters\. items keeps its first \d+ of 50 elements\. To get the rest, call x_user_posts again/,
    );
    // The advice: from the cache, free, with fewer fields, every element.
    expect(advised._meta).toMatchObject({ credits_charged: 0, cache_status: 'workspace; hit' });
    expect(advised._meta).not.toHaveProperty('truncated');
    expect((advised.structuredContent as { items: { id: string }[] }).items.map((post) => Object.keys(post))).toEqual(
      Array(50).fill(['id', 'url', 'type']),
    );
    expect((await getOrganization(orgId))!.credits).toBe(4);
    await client.close();
  });

  it('get_job: a page over the limit says which limit reads it whole, and that limit does', async () => {
    const { orgId, users } = await workspace({ credits: 30 });
    const client = await agent(orgId, users.editor);
    const inputs = Array.from({ length: 25 }, (_, i) => ({ handle: `creator${i}` }));
    const started = await client.callTool({ name: 'start_job', arguments: { operation: 'x_profile', inputs } });
    await drainJobs();
    const jobId = (started.structuredContent as { id: string }).id;

    const cut = await client.callTool({ name: 'get_job', arguments: { job_id: jobId } });
    const meta = cut._meta as { truncated: boolean; cut: { path: string; kept: number; total: number }[]; rest: string };
    const kept = meta.cut[0]!.kept;
    const advised = await client.callTool({ name: 'get_job', arguments: { job_id: jobId, limit: kept } });

    expect(texts(cut).join('').length).toBeLessThanOrEqual(LIMIT);
    expect(meta).toMatchObject({ truncated: true, cut: [{ path: 'items', kept, total: 25, unit: 'elements' }] });
    expect(meta.rest).toBe(
      `To read the rest, call get_job with "limit": ${kept} and the same job_id, status and cursor, then follow the next_cursor of that answer. Do not follow this answer's next_cursor before reading them: it continues after all 25 items of this page.`,
    );
    expect(advised._meta).toBeUndefined();
    expect((advised.structuredContent as { items: unknown[] }).items).toEqual((cut.structuredContent as { items: unknown[] }).items);
    expect((advised.structuredContent as { has_more: boolean }).has_more).toBe(true);
    await client.close();
  });
});
