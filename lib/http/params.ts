import * as z from 'zod';

/** Organization ids: the spec's only rule is the `org_` prefix; we also bound the length. */
export const organizationId = z
  .string()
  .regex(/^org_[A-Za-z0-9_-]{1,64}$/, 'must start with "org_" followed by 1 to 64 letters, digits, "_" or "-"');

export const uuidParam = z.uuid({ error: 'must be a UUID' });

/**
 * An integer query parameter with inclusive bounds and a default. Strings of digits only:
 * "1.5", "abc", "" and "+3" are refused with the same message naming the bounds.
 */
export const integerParam = (min: number, max: number, fallback: number) => {
  const rule = `must be an integer from ${min} to ${max}`;
  return z
    .string()
    .regex(/^[0-9]{1,9}$/, rule)
    .transform(Number)
    .pipe(z.number().int().min(min, rule).max(max, rule))
    .optional()
    .transform((value) => value ?? fallback);
};
