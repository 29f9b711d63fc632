/**
 * Many DynamoDB calls at once (the local stack under load, where every function shares one
 * client): at most 16 of HTTP requests are in flight, the others wait their turn within their
 * budget instead of in the SDK's socket pool (whose 1-s connection timeout also runs while a call
 * waits there). Against a database that answers each call after a while (a stub on 127.0.0.1).
 * And the client's stack goes without the SDK's logger middleware, whose filtering of each call's
 * input and output for a no-op logger was a fifth of a Query's client-side CPU.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';

const ANSWER_AFTER_MS = 700;
let received = 0;
let inFlight = 0;
let mostInFlight = 0;
const database = createServer((request, response) => {
  received += 1;
  inFlight += 1;
  mostInFlight = Math.max(mostInFlight, inFlight);
  request.resume();
  setTimeout(() => {
    inFlight -= 1;
    response.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0' }).end('{}');
  }, ANSWER_AFTER_MS);
});
await new Promise<void>((resolve) => database.listen(0, '127.0.0.1', resolve));
Object.assign(process.env, {
  DYNAMODB_ENDPOINT: `http://127.0.0.1:${(database.address() as AddressInfo).port}`,
  DYNAMODB_CALL_TIMEOUT_MS: '10000',
});
const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
const { db, SDK_LOGGER_MIDDLEWARE, tableName, withDeadline } = await import('../lib/db/client.ts');

afterAll(() => new Promise((resolve) => database.close(resolve)));

describe('calls beyond the socket pool', () => {
  it('wait for a slot, 16 of a request path at once, and none fails', async () => {
    // Act: three waves of a slow database's answers, the last waiting 1.4 s for its turn.
    const get = () => db().send(new GetCommand({ TableName: tableName(), Key: { PK: 'ORG#o', SK: 'ORG' } }));
    const answers = await withDeadline(Date.now() + 15_000, () => Promise.allSettled(Array.from({ length: 40 }, get)));

    // Assess
    expect(answers.filter((answer) => answer.status === 'rejected')).toEqual([]);
    // Each sent once: none gave up waiting for a socket and was sent again by the SDK's retries.
    expect(received).toBe(40);
    expect(mostInFlight).toBe(16);
  });
});

describe("the client's middleware", () => {
  it("has no logger middleware: the SDK's name for it still names it", () => {
    // The SDK's stack as it comes, beside this client's.
    const fresh = new DynamoDBClient({ region: 'us-east-1' }).middlewareStack.identify();
    const ours = db().middlewareStack.identify();

    // What the SDK has and this client lacks: its logger middleware, and nothing else.
    expect(fresh.filter((entry) => !ours.includes(entry))).toEqual([`${SDK_LOGGER_MIDDLEWARE} - initialize`]);
  });
});
