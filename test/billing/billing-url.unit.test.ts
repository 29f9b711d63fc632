/** Where a 402 for credits sends its reader (lib/billing/billing-url.ts): only that code, its data kept. */
import { describe, expect, it } from 'vitest';
import { billingUrl, fieldsWithBillingUrl, withBillingUrl } from '../../lib/billing/billing-url.ts';
import { insufficientCredits, ServiceError, spendingLimitExceeded } from '../../lib/errors.ts';

const BASE = 'https://api.example.com/prod';

describe('billingUrl', () => {
  it("is the console's Billing screen for the organization, under the API's base", () => {
    expect(billingUrl(BASE, 'org_a-1')).toBe('https://api.example.com/prod/console?organization_id=org_a-1#billing');
  });
});

describe('withBillingUrl', () => {
  it('adds data.billing_url to insufficient_credits, keeping its message and facts', () => {
    const error = withBillingUrl(insufficientCredits(3, 5), BASE, 'org_a') as ServiceError;
    expect(error).toBeInstanceOf(ServiceError);
    expect([error.code, error.status, error.message]).toEqual(['insufficient_credits', 402, insufficientCredits(3, 5).message]);
    expect(error.details.data).toEqual({
      balance: 3,
      cost: 5,
      how_to_add_credits: expect.any(String),
      billing_url: `${BASE}/console?organization_id=org_a#billing`,
    });
  });

  it.each([
    ['a limit', spendingLimitExceeded({ scope: 'member', period: 'day', spending_limit: 1, spent: 1, cost: 1, resets_at: 'x' })],
    ['another error', new ServiceError('forbidden')],
    ['not a ServiceError', new Error('boom')],
  ])('leaves %s as it is', (_case, error) => {
    expect(withBillingUrl(error, BASE, 'org_a')).toBe(error);
  });

  it('adds it to a stored body of that code only (a job item, a quote)', () => {
    expect(fieldsWithBillingUrl({ code: 'insufficient_credits', message: 'm' }, BASE, 'org_a')).toEqual({
      code: 'insufficient_credits',
      message: 'm',
      data: { billing_url: `${BASE}/console?organization_id=org_a#billing` },
    });
    const other = { code: 'upstream_failed', message: 'm' };
    expect(fieldsWithBillingUrl(other, BASE, 'org_a')).toBe(other);
  });
});
