/**
 * A TikHub stand-in on 127.0.0.1 for the `tikhub` provider's tests: its paths, its Bearer key
 * check, its envelope, the fixtures of test/support/tikhub/fixtures.ts; a test can make it fail
 * (every call, until told otherwise), hang or answer garbage.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { envelope, TIKHUB_FIXTURES } from './tikhub/fixtures.ts';

export const TIKHUB_STUB_KEY = 'tikhub-test-key';

export type TikHubBehaviour =
  | { kind: 'fixture' }
  | { kind: 'status'; status: number; body: string }
  | { kind: 'hang' }
  | { kind: 'garbage' };

export interface TikHubStub {
  baseUrl: string;
  requests: { path: string; query: Record<string, string> }[];
  /** Every answer from now on (fixtures again with `{ kind: 'fixture' }`). */
  always(behaviour: TikHubBehaviour): void;
  close(): Promise<void>;
}

export async function startTikHubStub(): Promise<TikHubStub> {
  let behaviour: TikHubBehaviour = { kind: 'fixture' };
  const hanging = new Set<ServerResponse>();
  const requests: TikHubStub['requests'] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    requests.push({ path: url.pathname, query: Object.fromEntries(url.searchParams) });
    const send = (status: number, body: string) => response.writeHead(status, { 'Content-Type': 'application/json' }).end(body);
    if (request.headers.authorization !== `Bearer ${TIKHUB_STUB_KEY}`)
      return send(401, JSON.stringify({ detail: { code: 401, message: 'Invalid token' } }));
    if (behaviour.kind === 'hang') return void hanging.add(response);
    if (behaviour.kind === 'status') return send(behaviour.status, behaviour.body);
    if (behaviour.kind === 'garbage') return send(200, JSON.stringify(envelope({ unexpected: true })));
    const data = TIKHUB_FIXTURES[url.pathname];
    return data ? send(200, JSON.stringify(envelope(data))) : send(404, JSON.stringify({ detail: { code: 404, message: 'Not Found' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    baseUrl: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    requests,
    always: (next) => {
      behaviour = next;
    },
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
