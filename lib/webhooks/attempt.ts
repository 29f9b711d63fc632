/**
 * One webhook attempt: the URL checked (its host resolved), then one signed POST to the address
 * that was checked, the whole exchange within one deadline however slowly the receiver sends.
 *
 * - A 2xx status is success the moment it arrives: the answer's body is not read (a receiver
 *   that answers 200 and then trickles its body has accepted the event).
 * - Any other status (a 3xx included: redirects are not followed) fails the attempt; at most
 *   BODY_READ_BYTES of its body are read, for the log line, and never past the deadline.
 * - At the deadline, whatever is under way (the lookup, the connection, the headers, the body)
 *   is abandoned and the socket destroyed: a slow receiver holds an attempt no longer than that.
 * - One connection per attempt (no keep-alive pool), closed when the attempt ends.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { webhooksConfig } from '../config.ts';
import { checkWebhookUrl, pinnedLookup } from './addresses.ts';
import { webhookSignature } from './signature.ts';

/** What is read of a failed attempt's answer, at most: its first bytes say why. */
const BODY_READ_BYTES = 512;
/** What of it goes into the log line. */
const DETAIL_CHARS = 200;

export interface SignedEvent {
  url: string;
  secret: string;
  /** The `webhook-id`: the event's id, the same on every attempt. */
  id: string;
  body: string;
}

export interface AttemptResult {
  ok: boolean;
  /** The receiver's status, or null when none came back in time. */
  statusCode: number | null;
  /** Why it failed (or the status): for the log. */
  detail: string;
}

class DeadlinePassed extends Error {}

/** Settles with `work`, or rejects with DeadlinePassed when `signal` aborts first. */
const beforeDeadline = <T>(work: Promise<T>, signal: AbortSignal): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(new DeadlinePassed());
    const abort = () => reject(new DeadlinePassed());
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });

/** A receiver's text as a log may hold it: one line, printable, short. */
const printable = (text: string): string =>
  text
    .replace(/[^\x20-\x7e]+/g, ' ')
    .trim()
    .slice(0, DETAIL_CHARS);

/**
 * Sends `event` once, signed with the attempt's time, and answers by `deadlineMs` (epoch ms)
 * whatever the receiver does.
 */
export async function attemptWebhook(
  event: SignedEvent,
  options: { deadlineMs: number; now?: () => number; allowLoopback?: boolean },
): Promise<AttemptResult> {
  const now = options.now ?? Date.now;
  const budgetMs = options.deadlineMs - Date.now();
  if (budgetMs <= 0) return { ok: false, statusCode: null, detail: 'no time left for an attempt' };
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), budgetMs);
  try {
    const target = await beforeDeadline(
      checkWebhookUrl(event.url, options.allowLoopback ?? webhooksConfig().allowLoopback),
      deadline.signal,
    );
    return await post(target, event, Math.floor(now() / 1000), deadline.signal);
  } catch (error) {
    const detail = error instanceof DeadlinePassed ? `no answer within the attempt's deadline (${budgetMs} ms)` : (error as Error).message;
    return { ok: false, statusCode: null, detail };
  } finally {
    clearTimeout(timer);
  }
}

function post(
  target: Awaited<ReturnType<typeof checkWebhookUrl>>,
  event: SignedEvent,
  timestampSeconds: number,
  signal: AbortSignal,
): Promise<AttemptResult> {
  const { url, address, family } = target;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<AttemptResult>((resolve, reject) => {
    let settled = false;
    /** What the deadline ends: the wait for a status, or the read of a failed answer's body. */
    let cut: () => void = () => settle(new DeadlinePassed());
    const settle = (result: AttemptResult | Error) => {
      if (settled) return;
      settled = true;
      outgoing.destroy();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const outgoing = send(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(event.body)),
          'user-agent': 'workspace-service-webhooks',
          'webhook-id': event.id,
          'webhook-timestamp': String(timestampSeconds),
          'webhook-signature': webhookSignature(event.secret, event.id, timestampSeconds, event.body),
        },
        lookup: pinnedLookup(address, family) as never,
      },
      (response) => {
        cut = settleOnAnswer(response, settle);
      },
    );
    const abort = () => cut();
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    outgoing.on('close', () => signal.removeEventListener('abort', abort));
    outgoing.on('error', (error) => settle(error));
    outgoing.end(event.body);
  });
}

/**
 * A 2xx at once; anything else once its first bytes (or its end, or the deadline) are in.
 * Returns what settles it at the deadline.
 */
function settleOnAnswer(response: IncomingMessage, settle: (result: AttemptResult) => void): () => void {
  const status = response.statusCode ?? 0;
  const ok = { ok: true, statusCode: status, detail: `status ${status}` };
  if (status >= 200 && status < 300) {
    settle(ok);
    return () => undefined;
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  const failed = () => {
    const text = printable(Buffer.concat(chunks).subarray(0, BODY_READ_BYTES).toString('utf8'));
    settle({ ok: false, statusCode: status, detail: text ? `status ${status}: ${text}` : `status ${status}` });
  };
  response.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    bytes += chunk.length;
    if (bytes >= BODY_READ_BYTES) failed();
  });
  response.on('end', failed);
  // Cut (by the deadline, or the receiver): what was read is all there is.
  response.on('error', failed);
  response.on('close', failed);
  return failed;
}
