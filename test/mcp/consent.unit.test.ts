/**
 * Consent before an expensive call (lib/mcp/consent.ts), without a table: the threshold that
 * applies, what the gate asks, and that a consent opens only with its own key and purpose
 * (habit 19). Spending it once, races and the wire: test/mcp/modern.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { confirmAboveOf } from '../../lib/billing/balance.ts';
import type { Organization } from '../../lib/db/organizations.ts';
import { ServiceError } from '../../lib/errors.ts';
import {
  answerOf,
  argumentsDigest,
  ConsentNeeded,
  confirmationRequired,
  consentGate,
  declaresFormElicitation,
  inputRequired,
} from '../../lib/mcp/consent.ts';
import { JsonRpcError } from '../../lib/mcp/protocol-errors.ts';
import { seal as oauthSeal } from '../../lib/oauth/sealing-key.ts';

const org = (confirmAbove: number | null): Organization => ({
  id: 'org_a',
  name: 'a',
  networks: ['x'],
  credits: 40,
  spending_limit: null,
  daily_limit: null,
  confirm_above: confirmAbove,
  created_at: '2026-01-01T00:00:00.000Z',
});
const scope = { caller: { userId: 'user_1' }, orgId: 'org_a', deadlineMs: 0, requestId: 'r', baseUrl: 'http://x' };
const call = { tool: 'x_profile', digest: argumentsDigest('x_profile', { handle: 'nasa' }, undefined) };
const needed = new ConsentNeeded(3, { credits: 2, scope: 'organization' }, 40);
const reasonOf = async (work: Promise<unknown>) => {
  const error = await work.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  return error instanceof ServiceError ? error.details.data?.reason : error;
};
const tokenOf = async (now = Date.now()) => String((await confirmationRequired(scope, call, needed, now)).details.data?.confirm_token);

describe('confirm_above', () => {
  it("holds the lower of the organization's and the key's, naming whose", () => {
    expect(confirmAboveOf({ confirm_above: null }, undefined)).toBeNull();
    expect(confirmAboveOf({ confirm_above: 5 }, { confirm_above: null })).toEqual({ credits: 5, scope: 'organization' });
    expect(confirmAboveOf({ confirm_above: 5 }, { confirm_above: 1 })).toEqual({ credits: 1, scope: 'api_key' });
    expect(confirmAboveOf({ confirm_above: 1 }, { confirm_above: 5 })).toEqual({ credits: 1, scope: 'organization' });
    expect(confirmAboveOf({ confirm_above: null }, { confirm_above: 0 })).toEqual({ credits: 0, scope: 'api_key' });
  });
});

describe('the consent gate', () => {
  it('asks nothing at or under the threshold, or without one; above it, asks', async () => {
    const gate = consentGate(scope, call);
    expect(await gate(2, org(2))).toBeUndefined();
    expect(await gate(100, org(null))).toBeUndefined();
    await expect(gate(3, org(2))).rejects.toBeInstanceOf(ConsentNeeded);
  });

  it('spends a good token, and asks again when the cost is now above the one consented', async () => {
    const token = await tokenOf();
    const spent = await consentGate(scope, { ...call, presented: { form: 'token', value: token } })(3, org(2));
    expect(spent?.item.Put?.Item?.PK).toMatch(/^CONSENT#[0-9a-f-]{36}$/);
    expect(spent?.item.Put?.ConditionExpression).toBe('attribute_not_exists(PK)');
    expect((spent?.refusal as ServiceError).details.data).toEqual({ reason: 'used' });
    await expect(consentGate(scope, { ...call, presented: { form: 'token', value: token } })(4, org(2))).rejects.toBeInstanceOf(
      ConsentNeeded,
    );
  });

  it('refuses what another key or another purpose sealed, and an expired or foreign token', async () => {
    const gate = (value: unknown, over: Partial<typeof scope> = {}, digest = call.digest) =>
      consentGate({ ...scope, ...over }, { ...call, digest, presented: { form: 'token', value } })(3, org(2));
    const token = await tokenOf();
    const [kid, payload, mac] = token.split('.');
    expect(
      await reasonOf(gate(await oauthSeal('mcp-confirm-token', JSON.parse(Buffer.from(String(payload), 'base64url').toString())))),
    ).toBe('malformed');
    expect(await reasonOf(gate(`${kid}.${payload}.${mac}x`))).toBe('malformed');
    expect(await reasonOf(gate(await inputRequired(scope, call, {}, needed).then((r) => r.requestState)))).toBe('malformed');
    expect(await reasonOf(gate(await tokenOf(Date.now() - 10 * 60_000)))).toBe('expired');
    expect(await reasonOf(gate(token, { caller: { userId: 'user_2' } }))).toBe('mismatch');
    expect(await reasonOf(gate(token, { orgId: 'org_b' }))).toBe('mismatch');
    expect(await reasonOf(gate(token, {}, argumentsDigest('x_profile', { handle: 'esa' }, undefined)))).toBe('mismatch');
  });

  it('binds _meta.max_age and max_credits into the digest, not the key order', () => {
    const digest = (args: Record<string, unknown>, meta?: Record<string, unknown>) => argumentsDigest('start_job', args, meta);
    expect(digest({ a: 1, b: 2 })).toBe(digest({ b: 2, a: 1 }));
    expect(digest({ a: 1 }, { max_age: 60 })).not.toBe(digest({ a: 1 }));
    expect(digest({ a: 1 }, { max_credits: 5 })).not.toBe(digest({ a: 1 }));
  });

  it('reads a requestState with its answer: accept runs, decline refuses, none asks again, a bad one is -32602', async () => {
    const state = String((await inputRequired(scope, call, { handle: 'nasa' }, needed)).requestState);
    const gate = (value: unknown, answer: 'accept' | 'decline' | 'missing') =>
      consentGate(scope, { ...call, presented: { form: 'state', value, answer } })(3, org(2));
    expect((await gate(state, 'accept'))?.refusal).toBeInstanceOf(ConsentNeeded);
    await expect(gate(state, 'decline')).rejects.toMatchObject({ code: 'consent_declined' });
    await expect(gate(state, 'missing')).rejects.toBeInstanceOf(ConsentNeeded);
    await expect(gate(await tokenOf(), 'accept')).rejects.toBeInstanceOf(JsonRpcError);
    await expect(gate(`${state}x`, 'accept')).rejects.toMatchObject({ code: -32602 });
  });

  it('reads answers and capabilities as the revision has them', () => {
    expect(answerOf({ consent: { action: 'accept', content: { confirm: true } } })).toBe('accept');
    expect(answerOf({ consent: { action: 'accept', content: { confirm: false } } })).toBe('decline');
    expect(answerOf({ consent: { action: 'cancel' } })).toBe('decline');
    expect(answerOf({ consent: { action: 'accept' } })).toBe('missing');
    expect(answerOf(undefined)).toBe('missing');
    expect(declaresFormElicitation({ elicitation: {} })).toBe(true);
    expect(declaresFormElicitation({ elicitation: { form: {} } })).toBe(true);
    expect(declaresFormElicitation({ elicitation: { url: {} } })).toBe(false);
    expect(declaresFormElicitation({})).toBe(false);
  });
});
