/**
 * A new API key's record (lib/auth/api-key-record.ts), the one every issuer writes: an owner's key
 * and an OAuth grant differ only in what they are given.
 */
import { describe, expect, it } from 'vitest';
import { newApiKeyRecord } from '../../lib/auth/api-key-record.ts';
import { API_KEY_ID_PATTERN } from '../../lib/model.ts';

const now = new Date('2026-03-15T12:00:00.750Z');
const base = { orgId: 'org_a', name: 'ci', role: 'editor' as const, createdById: 'user_1', days: 30, now };

describe('newApiKeyRecord', () => {
  it('issues at a whole second, expires `days` later, with no guardrail, use or revocation unless given', () => {
    const key = newApiKeyRecord(base);

    expect(key.id).toMatch(API_KEY_ID_PATTERN);
    expect(key).toEqual({
      id: key.id,
      organization_id: 'org_a',
      name: 'ci',
      role: 'editor',
      spending_limit: null,
      daily_limit: null,
      confirm_above: null,
      allowed_ips: null,
      rate_limit: null,
      created_at: '2026-03-15T12:00:00.000Z',
      created_by_id: 'user_1',
      expires_at: '2026-04-14T12:00:00.000Z',
      revoked_at: null,
      last_used_at: null,
    });
    expect(newApiKeyRecord(base).id).not.toBe(key.id);
  });

  it("keeps what it is given: an owner's guardrails, an OAuth grant's client", () => {
    const oauth = { client_id: 'client_1', client_name: 'Agent', redirect_uri: 'https://agent.example/cb' };
    const key = newApiKeyRecord({
      ...base,
      spendingLimit: 100,
      dailyLimit: 10,
      allowedIps: ['192.0.2.0/24'],
      rateLimit: { requests: 5 },
      oauth,
    });

    expect(key).toMatchObject({
      spending_limit: 100,
      daily_limit: 10,
      allowed_ips: ['192.0.2.0/24'],
      rate_limit: { requests: 5 },
      oauth,
    });
  });
});
