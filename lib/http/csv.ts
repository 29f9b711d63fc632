/**
 * CSV answers (RFC 4180): a header row, CRLF after every record, a field quoted when it holds a
 * comma, a double quote, CR or LF (its quotes doubled), an empty field for null. And the choice
 * of it: a route that can answer CSV does when the request's `Accept` prefers `text/csv` to JSON.
 */
export const CSV_TYPE = 'text/csv';
/** A CSV answer's Content-Type: RFC 4180's media type with its `header=present` parameter. */
export const CSV_CONTENT_TYPE = `${CSV_TYPE}; charset=utf-8; header=present`;

const field = (value: string | number | null): string => {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

export const csvText = (header: readonly string[], rows: readonly (readonly (string | number | null)[])[]): string =>
  [header, ...rows].map((row) => `${row.map(field).join(',')}\r\n`).join('');

/** The weight `Accept` gives a media type: its most specific matching range's q (0 when none matches). */
function weightOf(ranges: { type: string; q: number }[], mediaType: string): number {
  const [kind] = mediaType.split('/');
  const exact = ranges.find((range) => range.type === mediaType);
  const kindWide = ranges.find((range) => range.type === `${kind}/*`);
  const any = ranges.find((range) => range.type === '*/*');
  return (exact ?? kindWide ?? any)?.q ?? 0;
}

/**
 * Whether `accept` asks for CSV rather than JSON: `text/csv` weighs more than
 * `application/json`, or as much when only CSV is named (CSV beside a wildcard). No header, a
 * wildcard alone, or anything naming neither: JSON, as every route answers.
 */
export function wantsCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(',').flatMap((part) => {
    const [type = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    if (!type) return [];
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    return [{ type, q: Number.isFinite(weight) ? weight : 0 }];
  });
  const csv = weightOf(ranges, CSV_TYPE);
  const json = weightOf(ranges, 'application/json');
  if (csv === 0) return false;
  const csvNamed = ranges.some((range) => range.type === CSV_TYPE);
  const jsonNamed = ranges.some((range) => range.type === 'application/json');
  return csv > json || (csv === json && csvNamed && !jsonNamed);
}
