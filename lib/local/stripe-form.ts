/**
 * Stripe's request encoding, read back: form bodies and query strings in bracket notation
 * (`metadata[purchase_id]=…`, `line_items[0][quantity]=…`, `types[]=…`), the way the `stripe` SDK
 * writes them. Numeric and empty brackets make lists, any other bracket an object.
 */

export type FormValue = string | FormValue[] | { [key: string]: FormValue };

function pathOf(key: string): string[] {
  const first = key.indexOf('[');
  if (first === -1) return [key];
  const path = [key.slice(0, first)];
  for (const match of key.slice(first).matchAll(/\[([^\]]*)\]/g)) path.push(match[1] ?? '');
  return path;
}

function place(container: Record<string, FormValue> | FormValue[], path: string[], value: string): void {
  const [head = '', ...rest] = path;
  const isList = Array.isArray(container);
  const slot = isList && (head === '' || /^\d+$/.test(head)) ? (head === '' ? container.length : Number(head)) : head;
  const holder = container as Record<string | number, FormValue | undefined>;
  if (rest.length === 0) {
    holder[slot] = value;
    return;
  }
  const next = rest[0] ?? '';
  let child = holder[slot];
  if (child === undefined || typeof child === 'string') {
    child = next === '' || /^\d+$/.test(next) ? [] : {};
    holder[slot] = child;
  }
  place(child, rest, value);
}

/** `a=1&b[c]=2&d[0]=x` → `{ a: '1', b: { c: '2' }, d: ['x'] }`. */
export function parseStripeForm(text: string): Record<string, FormValue> {
  const result: Record<string, FormValue> = {};
  for (const [key, value] of new URLSearchParams(text)) place(result, pathOf(key), value);
  return result;
}
