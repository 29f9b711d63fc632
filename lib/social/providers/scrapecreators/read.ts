/** Readers of the vendor's values: each turns whatever the vendor sent into our type or null. */

export const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null;

/** Non-negative integers from numbers or numeric strings ("1,234" too); anything else is null. */
export const int = (value: unknown): number | null => {
  const n = typeof value === 'string' ? Number(value.replaceAll(',', '')) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.floor(n) : null;
};

/** Unix seconds (number or digits), ISO 8601 with any offset, or X's "Thu Sep 12 00:08:39 +0000 2024" → ISO UTC. */
export const iso = (value: unknown): string | null => {
  if (value === null || value === undefined || value === '') return null;
  const ms =
    typeof value === 'number' || (typeof value === 'string' && /^[0-9]{9,11}$/.test(value))
      ? Number(value) * 1000
      : Date.parse(String(value));
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
};

export const bool = (value: unknown): boolean | null =>
  typeof value === 'boolean' ? value : value === 1 || value === 0 ? value === 1 : null;

/** A text field of the input, or undefined when the caller left it out. */
export const given = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
export const bareHandle = (handle: unknown) => String(handle).replace(/^@/, '');
