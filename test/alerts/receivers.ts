/**
 * Receivers on 127.0.0.1 for notification endpoints in tests (loopback is allowed in tests, as
 * under npm start): each answers the statuses given, one per request (the last one thereafter),
 * and keeps what it received.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

export async function receiver(
  statuses: number[] = [200],
  /** Sent with every answer (a redirect's Location). */
  headers: Record<string, string> = {},
): Promise<{ url: string; received: Received[]; events: () => any[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const status = statuses[Math.min(received.length - 1, statuses.length - 1)] ?? 200;
      response.writeHead(status, headers).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/alerts`,
    received,
    events: () => received.map((delivery) => JSON.parse(delivery.body)),
  };
}
