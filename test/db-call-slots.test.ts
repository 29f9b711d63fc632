/**
 * More DynamoDB calls at once than the client has sockets (the local stack under load, where
 * every function shares one client): the calls beyond them wait their turn within their budget
 * instead of failing after the SDK's 1-s connection timeout, which also runs while a call waits
 * for a socket. Against a database that answers each call after a while (a stub on 127.0.0.1).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';

const ANSWER_AFTER_MS = 1_100;
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
const { db, tableName, withDeadline } = await import('../lib/db/client.ts');

afterAll(() => new Promise((resolve) => database.close(resolve)));

describe('calls beyond the socket pool', () => {
  it('wait for a socket, 40 of a request path at once, and none fails', async () => {
    // Act: three waves of a slow database's answers, the last waiting more than 2 s for its turn.
    const get = () => db().send(new GetCommand({ TableName: tableName(), Key: { PK: 'ORG#o', SK: 'ORG' } }));
    const answers = await withDeadline(Date.now() + 15_000, () => Promise.allSettled(Array.from({ length: 81 }, get)));

    // Assess
    expect(answers.filter((answer) => answer.status === 'rejected')).toEqual([]);
    // Each sent once: none gave up waiting for a socket and was sent again by the SDK's retries.
    expect(received).toBe(81);
    expect(mostInFlight).toBe(40);
  });
});
