import { createServer, type Server } from 'node:http';
import type { TestProject } from 'vitest/node';
import { type RunningDynamo, startDynamoDbLocal } from '../../lib/local/dynamodb-local.ts';
import { generateSigningKey, jwksOf } from '../../lib/local/signing-key.ts';
import { findChromium } from './chromium.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    jwksUri: string;
    signingKey: { kid: string; privateKeyPem: string };
  }
}

let dynamo: RunningDynamo | undefined;
let jwksServer: Server | undefined;

/** A real JWKS endpoint on 127.0.0.1 (the verifier fetches it like any issuer's) and DynamoDB Local. */
export async function setup(project: TestProject): Promise<void> {
  const key = generateSigningKey();
  const jwks = JSON.stringify(jwksOf(key));
  jwksServer = createServer((request, response) => {
    if (request.url === '/.well-known/jwks.json') response.writeHead(200, { 'Content-Type': 'application/json' }).end(jwks);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => jwksServer!.listen(0, '127.0.0.1', resolve));
  const address = jwksServer.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  // C1 only: a run of the suite is too short for C2 to repay its compiling (lib/local/dynamodb-local.ts).
  // The browser tests' Chromium is inflated (once per clone) while the JVM starts, rather than by
  // each browser test when they start together, which both did on a fresh clone (~5 CPU-s each).
  // A machine without one hears about it from those tests.
  [dynamo] = await Promise.all([startDynamoDbLocal({ compilers: 'quick' }), findChromium().catch(() => undefined)]);
  project.provide('dynamodbEndpoint', dynamo.endpoint);
  project.provide('jwksUri', `http://127.0.0.1:${port}/.well-known/jwks.json`);
  project.provide('signingKey', key);
}

export async function teardown(): Promise<void> {
  jwksServer?.close();
  await dynamo?.stop();
}
