/**
 * The SQS queue without the SQS client (lib/queues/sqs-queue.ts): its Signature Version 4 is the
 * SDK's own signer's, byte for byte; and a send against a local endpoint speaking SQS's JSON
 * protocol tries a failed call and failed entries again, and refuses an answer whose MD5 is not the body's.
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueAt, signedSqsRequest } from '../../lib/queues/sqs-queue.ts';

const bytes = (data: ArrayBuffer | ArrayBufferView): Buffer =>
  data instanceof ArrayBuffer ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);

/** The SDK's checksum interface over node:crypto (an HMAC when given a secret), for its signer. */
class Sha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    const key = typeof secret === 'string' || secret === undefined ? secret : bytes(secret);
    this.hash = key ? createHmac('sha256', key) : createHash('sha256');
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(typeof data === 'string' ? data : bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {}
}

describe('an SQS call signed without the SDK', () => {
  it.each([
    [
      'with a session token (Lambda)',
      { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'FQoGZXIvYXdzE//token' },
    ],
    ['without one', { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' }],
  ])('carries the signature the SDK signer computes, %s', async (_case, credentials) => {
    // Prepare
    const now = new Date('2026-11-29T05:00:07.123Z');
    const input = {
      QueueUrl: 'https://sqs.eu-west-3.amazonaws.com/123456789012/workspace-jobs',
      Entries: [{ Id: '0', MessageBody: '{"job":"job_1","é":"ü"}', MessageGroupId: 'org_1' }],
    };

    // Act
    const ours = signedSqsRequest('SendMessageBatch', input, credentials, 'eu-west-3', now);
    // x-amz-content-sha256 is optional outside S3: the request signs its body's hash either way.
    const signer = new SignatureV4({ credentials, region: 'eu-west-3', service: 'sqs', sha256: Sha256, applyChecksum: false });
    const { host: _host, authorization: _ours, ...headers } = ours.headers;
    const sdk = await signer.sign(
      {
        method: 'POST',
        protocol: 'https:',
        hostname: 'sqs.eu-west-3.amazonaws.com',
        path: '/',
        query: {},
        headers: { ...headers, host: 'sqs.eu-west-3.amazonaws.com' },
        body: ours.body,
      },
      { signingDate: now },
    );

    // Assess
    expect(ours.url).toBe('https://sqs.eu-west-3.amazonaws.com/');
    expect(JSON.parse(ours.body)).toEqual(input);
    expect(ours.headers.authorization).toBe(sdk.headers.authorization);
    expect(ours.headers['x-amz-target']).toBe('AmazonSQS.SendMessageBatch');
  });
});

describe('a send to SQS', () => {
  const seen: { headers: IncomingHttpHeaders; body: { QueueUrl: string; Entries: { Id: string; MessageBody: string }[] } }[] = [];
  let answers: ((entries: { Id: string; MessageBody: string }[]) => { status: number; body: unknown })[] = [];
  let server: Server;
  let url: string;
  const md5 = (text: string) => createHash('md5').update(text).digest('hex');
  const ok = (entries: { Id: string; MessageBody: string }[]) => ({
    status: 200,
    body: {
      Successful: entries.map((entry) => ({ Id: entry.Id, MessageId: `m-${entry.Id}`, MD5OfMessageBody: md5(entry.MessageBody) })),
      Failed: [],
    },
  });

  beforeAll(async () => {
    server = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        const body = JSON.parse(text) as (typeof seen)[number]['body'];
        seen.push({ headers: request.headers, body });
        const { status, body: answer } = (answers.shift() ?? ok)(body.Entries);
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/123456789012/jobs`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends 10 a call, tries again a call SQS failed and the entries it failed, and signs each', async () => {
    // Prepare
    seen.length = 0;
    answers = [
      () => ({ status: 500, body: { __type: 'com.amazonaws.sqs#InternalError', message: 'try again' } }),
      (entries) => ({
        status: 200,
        body: {
          Successful: entries.slice(1).map((entry) => ({ Id: entry.Id, MD5OfMessageBody: md5(entry.MessageBody) })),
          Failed: [{ Id: entries[0]!.Id, SenderFault: false, Code: 'InternalError' }],
        },
      }),
    ];
    const messages = Array.from({ length: 10 }, (_, i) => ({ message: { item: i }, groupId: 'org_1' }));

    // Act
    await queueAt('jobs', url).send(messages);

    // Assess
    expect(seen.map((call) => call.body.Entries.length)).toEqual([10, 10, 1]);
    expect(seen[2]!.body.Entries[0]!.MessageBody).toBe('{"item":0}');
    expect(seen.every((call) => call.body.QueueUrl === url && call.headers['x-amz-target'] === 'AmazonSQS.SendMessageBatch')).toBe(true);
    expect(seen[0]!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=unit\/\d{8}\/us-east-1\/sqs\/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=[0-9a-f]{64}$/,
    );
  });

  it.each([
    [
      'a sender fault',
      () => ({
        status: 200,
        body: { Successful: [], Failed: [{ Id: '0', SenderFault: true, Code: 'InvalidParameterValue', Message: 'too big' }] },
      }),
      'SendMessageBatch refused a message: InvalidParameterValue too big',
    ],
    [
      'a refused call',
      () => ({ status: 400, body: { __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: 'no such queue' } }),
      'SendMessageBatch refused: 400 QueueDoesNotExist no such queue',
    ],
    [
      'an MD5 that is not the body’s',
      () => ({ status: 200, body: { Successful: [{ Id: '0', MD5OfMessageBody: md5('other') }], Failed: [] } }),
      'the MD5 of message 0 is not the MD5 of the body sent',
    ],
  ])('fails at once on %s', async (_case, answer, message) => {
    // Prepare
    seen.length = 0;
    answers = [answer];

    // Act
    const sent = queueAt('jobs', url).send([{ message: { item: 0 }, groupId: 'org_1' }]);

    // Assess
    await expect(sent).rejects.toThrow(message);
    expect(seen).toHaveLength(1);
  });
});
