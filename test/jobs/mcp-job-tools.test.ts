/**
 * The job tools of the MCP server (docs/mcp.md, "Jobs"): `start_job` starts a job as POST
 * /social/{operation}/jobs does, `get_job` reads it and a page of its items; refusals are tool
 * results with `isError`, the body the REST route would answer, naming `arguments`.
 */
import { describe, expect, it } from 'vitest';
import { handler as mcpHandler } from '../../functions/mcp.ts';
import { handleJobMessage } from '../../lib/jobs/worker.ts';
import { workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { jobsQueue } from '../support/jobs.ts';
import { ledgerProblems, readLedger } from '../support/ledger.ts';
import { tokenFor } from '../support/tokens.ts';

const tool = (orgId: string, userId: string, name: string, args: Record<string, unknown>) =>
  call(mcpHandler, {
    method: 'POST',
    url: `/mcp?organization_id=${orgId}`,
    token: tokenFor(userId),
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  });

async function drain(): Promise<void> {
  const stop = jobsQueue().consume((message) => handleJobMessage(message), { concurrency: 4, visibilityTimeoutMs: 500 });
  try {
    await jobsQueue().drained();
  } finally {
    await stop();
  }
}

describe('MCP job tools', () => {
  it('starts a job with start_job and reads it, with its items, with get_job', async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 10 });

    // Act
    const started = await tool(orgId, users.editor, 'start_job', {
      operation: 'x_profile',
      inputs: [{ handle: 'nasa' }, { handle: 'nike' }],
    });
    await drain();
    const job = started.body.result.structuredContent;
    const read = await tool(orgId, users.viewer, 'get_job', { job_id: job.id, limit: 1 });

    // Assess
    expect(started.status).toBe(200);
    expect(started.body.result.isError).toBeUndefined();
    expect(job).toMatchObject({ id: expect.stringMatching(/^job_/), operation: 'x_profile', status: 'queued', total: 2 });
    const page = read.body.result.structuredContent;
    expect(page.job).toMatchObject({ id: job.id, status: 'completed', succeeded: 2, charged: 2 });
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({ index: 0, status: 'succeeded', input: { handle: 'nasa' } });
    expect(page.has_more).toBe(true);
    expect(JSON.parse(read.body.result.content[0].text)).toEqual(page);
    expect(ledgerProblems(await readLedger(orgId), 2)).toEqual([]);
  });

  it("reads an item refused for credits with get_job, naming the console's Billing screen as the REST items do", async () => {
    // Prepare: credits for one of two items.
    const { orgId, users } = await workspace({ credits: 1 });

    // Act
    const started = await tool(orgId, users.editor, 'start_job', {
      operation: 'x_profile',
      inputs: [{ handle: 'nasa' }, { handle: 'nike' }],
    });
    await drain();
    const read = await tool(orgId, users.viewer, 'get_job', { job_id: started.body.result.structuredContent.id, status: 'failed' });

    // Assess: the worker stored the refusal without a base; the reader's base names the screen.
    const [failed] = read.body.result.structuredContent.items;
    expect(failed.error).toMatchObject({
      code: 'insufficient_credits',
      data: { balance: 0, cost: 1, billing_url: `http://127.0.0.1/console?organization_id=${orgId}#billing` },
    });
  });

  it('refuses as the REST route does: a viewer, an invalid input, a job of another workspace', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const other = await workspace({ credits: 10 });

    const viewer = await tool(orgId, users.viewer, 'start_job', { operation: 'x_profile', inputs: [{ handle: 'nasa' }] });
    expect(viewer.body.result.isError).toBe(true);
    expect(JSON.parse(viewer.body.result.content[0].text)).toMatchObject({ code: 'forbidden' });

    const invalid = await tool(orgId, users.editor, 'start_job', { operation: 'x_profile', inputs: [{ handle: 'nasa' }, { handle: '' }] });
    const body = JSON.parse(invalid.body.result.content[0].text);
    expect(body.code).toBe('validation_failed');
    expect(body.data.issues[0].path).toEqual(['arguments', 'inputs', 1, 'handle']);

    const none = await tool(orgId, users.editor, 'start_job', { operation: 'x_profile', inputs: [] });
    expect(JSON.parse(none.body.result.content[0].text).data.issues[0].path).toEqual(['arguments', 'inputs']);

    const theirs = await tool(other.orgId, other.users.editor, 'start_job', { operation: 'x_profile', inputs: [{ handle: 'nasa' }] });
    const theirJob = theirs.body.result.structuredContent.id;
    const crossed = await tool(orgId, users.editor, 'get_job', { job_id: theirJob });
    expect(JSON.parse(crossed.body.result.content[0].text)).toMatchObject({ code: 'not_found' });
    await drain();
  });
});
