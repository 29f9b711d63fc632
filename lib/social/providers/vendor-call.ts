/**
 * One GET to a data vendor as both HTTP providers make it (ScrapeCreators, lib/social/providers/http.ts;
 * TikHub, tikhub/index.ts): the query without empty values, the run's AbortSignal on the socket
 * (the timeout), the answer read as JSON. A vendor out of reach, a call aborted or a body that is
 * not JSON is an `UpstreamError` naming the vendor; what the JSON says is the provider's to read,
 * with the two errors below for a refusal and an answer of another shape.
 */
import type * as z from 'zod/mini';
import { UpstreamError } from './types.ts';

/** A field of a JSON value that may be anything: undefined unless the value is an object with it. */
export const field = (value: unknown, name: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;

export async function vendorGet(
  vendor: string,
  url: string,
  params: Readonly<Record<string, unknown>>,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<{ status: number; ok: boolean; body: unknown }> {
  const target = new URL(url);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') target.searchParams.set(name, String(value));
  }
  const response = await fetch(target, { headers: { ...headers, accept: 'application/json' }, signal }).catch((error: unknown) => {
    throw new UpstreamError(
      signal.aborted ? 'the provider call was aborted (timeout)' : `${vendor} could not be reached: ${(error as Error).message}`,
    );
  });
  const text = await response.text();
  try {
    return { status: response.status, ok: response.ok, body: JSON.parse(text) };
  } catch {
    throw new UpstreamError(`${vendor} answered ${response.status} with a body that is not JSON`, { status: response.status });
  }
}

/** The vendor refused the call (a status other than 2xx, or its envelope's error), with what it said if it said something. */
export const vendorRefused = (vendor: string, status: number, message: unknown): UpstreamError =>
  new UpstreamError(`${vendor} answered ${status}${typeof message === 'string' ? `: ${message}` : ''}`, { status });

/** `value` as `schema` reads it, or an `UpstreamError` naming the first path of another shape: never half-read. */
export function readAnswer<Schema extends z.ZodMiniType>(
  vendor: string,
  operation: string,
  schema: Schema,
  value: unknown,
): z.output<Schema> {
  const read = schema.safeParse(value);
  if (!read.success)
    throw new UpstreamError(`${vendor}'s answer to ${operation} is not the shape read: ${read.error.issues[0]?.path.join('.') ?? ''}`);
  return read.data;
}
