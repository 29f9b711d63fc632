/**
 * The one Max-Credits rule (lib/billing/max-credits.ts): the header's text and every JSON place
 * (a job's `max_credits`, MCP's `_meta.max_credits` and `start_job` argument) accept the same caps
 * and refuse the rest in the same words.
 */
import { describe, expect, it } from 'vitest';
import { MAX_CREDITS_RULE, maxCreditsNumber, maxCreditsText } from '../../lib/billing/max-credits.ts';

const messagesOf = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.success ? [] : [...new Set(result.error?.issues.map((issue) => issue.message))];

describe('Max-Credits', () => {
  it.each(['0', '25', '1000000'])('takes the header %j as its number', (text) => {
    expect(maxCreditsText().parse(text)).toBe(Number(text));
  });

  it.each([0, 25, 1_000_000])('takes %j as a JSON value', (value) => {
    expect(maxCreditsNumber().parse(value)).toBe(value);
  });

  it.each(['1.5', '-1', '+2', '1e3', '', ' ', 'abc', '1000001', '99999999'])('refuses the header %j in the one wording', (text) => {
    expect(messagesOf(maxCreditsText().safeParse(text))).toEqual([MAX_CREDITS_RULE]);
  });

  it.each([-1, 1.5, '3', 1_000_001, null])('refuses the JSON value %j in the same wording', (value) => {
    expect(messagesOf(maxCreditsNumber().safeParse(value))).toEqual([MAX_CREDITS_RULE]);
  });

  it('says what a cap may be', () => {
    expect(MAX_CREDITS_RULE).toBe('must be a whole number of credits from 0 to 1000000');
  });
});
