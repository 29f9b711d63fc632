/**
 * The deployed queues (lib/queues/queue.ts): SQS standard queues, messages sent 10 a request
 * (SendMessageBatch) with `MessageGroupId` = the organization. `queueAt` is the queue of a name in
 * this process: SQS at its URL, or, without one, this process's own (npm start, the tests).
 *
 * SendMessageBatch is the one SQS call the functions make, so it is made here, in SQS's JSON
 * protocol over `fetch`, signed with Signature Version 4 by the DynamoDB client's own credentials
 * (the environment's in a bundle, the SDK's whole chain under tsx): `@aws-sdk/client-sqs` would
 * bring 27 KB to every function that queues (its schemas and errors for every SQS action), which
 * took the MCP function past its size aim (docs/performance.md#bundling-decisions-measured). What
 * the client did besides is kept: transient failures tried again with backoff, and each sent
 * body's MD5 checked against SQS's. `test/queues/sqs-queue.unit.test.ts` holds the signature to
 * the SDK's own signer; the bundled functions speak to the local server's SQS endpoint
 * (lib/local/sqs-bridge.ts) through it.
 */
import { createHash, createHmac } from 'node:crypto';
import { config } from '../config.ts';
import { db } from '../db/client.ts';
import { localQueue, type Outgoing, type Queue, type QueueName } from './queue.ts';

/** The AWS credentials a request is signed with. */
export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
}

/** One SQS JSON-protocol call as `fetch` sends it. */
export interface SqsRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

const sha256 = (data: string): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data).digest();

/**
 * `AmazonSQS.<action>` with `input`, to the origin of `queueUrl` (as the SDK sends it: the queue's
 * host is the endpoint), signed with Signature Version 4 for `sqs` in `region` at `now`. Pure.
 */
export function signedSqsRequest(
  action: string,
  input: { QueueUrl: string } & Record<string, unknown>,
  credentials: Credentials,
  region: string,
  now: Date,
): SqsRequest {
  const endpoint = new URL(input.QueueUrl);
  const body = JSON.stringify(input);
  const amzDate = now.toISOString().replace(/[-:]|\.\d{3}/g, '');
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.0',
    host: endpoint.host,
    'x-amz-date': amzDate,
    ...(credentials.sessionToken ? { 'x-amz-security-token': credentials.sessionToken } : {}),
    'x-amz-target': `AmazonSQS.${action}`,
  };
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const canonical = ['POST', '/', '', ...names.map((name) => `${name}:${headers[name]}`), '', signedHeaders, sha256(body)].join('\n');
  const scope = `${day}/${region}/sqs/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), region), 'sqs'), 'aws4_request');
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  const { host: _host, ...sent } = headers;
  return {
    url: `${endpoint.origin}/`,
    headers: {
      ...sent,
      authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
    },
    body,
  };
}

/** SQS's answer to a SendMessageBatch (the fields read). */
interface BatchResult {
  Successful?: { Id: string; MD5OfMessageBody?: string }[];
  Failed?: { Id: string; SenderFault?: boolean; Code?: string; Message?: string }[];
}

/** An error SQS answers that a later attempt may not meet (the SDK's transient and throttling codes). */
const TRANSIENT = /Throttl|RequestThrottled|ServiceUnavailable|InternalError|InternalFailure|KmsThrottled|RequestTimeout/;
/** How long one call may take: SQS answers in milliseconds; a stuck socket must not hold the function to its own timeout. */
const CALL_TIMEOUT_MS = 5_000;

class SqsError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
  }
}

/** One SendMessageBatch call; throws `SqsError` (transient or not) when SQS refuses the request as a whole. */
async function sendBatch(request: SqsRequest): Promise<BatchResult> {
  const answer = await fetch(request.url, {
    method: 'POST',
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  }).catch((error: unknown) => {
    throw new SqsError(`SendMessageBatch could not reach SQS: ${(error as Error).message}`, true);
  });
  const text = await answer.text();
  let parsed: (BatchResult & { __type?: string; message?: string; Message?: string }) | undefined;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    // An answer that is not JSON (a proxy's page): its status says whether to try again.
  }
  if (answer.ok && parsed) return parsed;
  const code = parsed?.__type?.split('#').pop() ?? '';
  throw new SqsError(
    `SendMessageBatch refused: ${answer.status} ${code} ${parsed?.message ?? parsed?.Message ?? text.slice(0, 200)}`.trim(),
    answer.status >= 500 || TRANSIENT.test(code),
  );
}

class SqsQueue<M> implements Queue<M> {
  constructor(private readonly url: string) {}

  async send(messages: readonly Outgoing<M>[]): Promise<void> {
    const credentials = db().config.credentials;
    const { region } = config();
    const batches: Outgoing<M>[][] = [];
    for (let start = 0; start < messages.length; start += 10) batches.push(messages.slice(start, start + 10));
    let next = 0;
    const sender = async () => {
      for (let batch = batches[next++]; batch; batch = batches[next++]) {
        let entries = batch.map((outgoing, i) => ({
          Id: String(i),
          MessageBody: JSON.stringify(outgoing.message),
          MessageGroupId: outgoing.groupId,
          ...(outgoing.delaySeconds ? { DelaySeconds: Math.min(900, Math.ceil(outgoing.delaySeconds)) } : {}),
        }));
        // An entry SQS failed (throttled, internal), or the whole call where SQS or the network
        // failed, is sent again; a sender fault is not retried.
        for (let attempt = 0; entries.length > 0; attempt += 1) {
          if (attempt >= 5) throw new Error(`SendMessageBatch left ${entries.length} messages unsent after ${attempt} attempts`);
          if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
          const request = signedSqsRequest(
            'SendMessageBatch',
            { QueueUrl: this.url, Entries: entries },
            await credentials(),
            region,
            new Date(),
          );
          const result = await sendBatch(request).catch((error: unknown) => {
            if (error instanceof SqsError && error.transient && attempt < 4) return undefined;
            throw error;
          });
          if (!result) continue;
          const bodies = new Map(entries.map((entry) => [entry.Id, entry.MessageBody]));
          for (const sent of result.Successful ?? []) {
            const body = bodies.get(sent.Id);
            if (body !== undefined && sent.MD5OfMessageBody !== createHash('md5').update(body).digest('hex'))
              throw new Error(`SendMessageBatch: the MD5 of message ${sent.Id} is not the MD5 of the body sent`);
          }
          const failed = result.Failed ?? [];
          const fatal = failed.find((entry) => entry.SenderFault);
          if (fatal) throw new Error(`SendMessageBatch refused a message: ${fatal.Code} ${fatal.Message ?? ''}`);
          const retry = new Set(failed.map((entry) => entry.Id));
          entries = entries.filter((entry) => retry.has(entry.Id));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(10, batches.length) }, sender));
  }
}

/** The queue `name`: SQS at `url` when set, else this process's own. */
export function queueAt<M>(name: QueueName, url: string | undefined): Queue<M> {
  if (url) return new SqsQueue<M>(url);
  const local = localQueue(name);
  if (!local) {
    throw new Error(
      `no ${name} queue: deployed, its URL is in the function's environment (${name === 'jobs' ? 'JOBS_QUEUE_URL' : 'WEBHOOKS_QUEUE_URL'}); locally, lib/local/embedded-queue.ts provides it`,
    );
  }
  return local as Queue<M>;
}
