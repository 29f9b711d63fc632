/**
 * A data vendor's stand-in on 127.0.0.1, for a provider's tests: its paths' fixtures in its
 * answer's wrapping, its key check, and what a test makes it do instead (every call, until told
 * otherwise): fail with a status, hang, or answer a well-wrapped body of the wrong shape.
 * tikhub-stub.ts and facebook-scraper3-stub.ts are this with their vendor's conventions.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export type VendorBehaviour =
  | { kind: 'fixture' }
  | { kind: 'status'; status: number; body: string }
  | { kind: 'hang' }
  | { kind: 'garbage' };

export interface VendorStub {
  baseUrl: string;
  requests: { path: string; query: Record<string, string> }[];
  /** Every answer from now on (fixtures again with `{ kind: 'fixture' }`). */
  always(behaviour: VendorBehaviour): void;
  close(): Promise<void>;
}

export interface VendorConventions {
  /** The vendor's answer to a missing or wrong key, or undefined when the key is right. */
  refused(request: IncomingMessage): { status: number; body: unknown } | undefined;
  /** The data of each path the stub serves. */
  fixtures: Readonly<Record<string, unknown>>;
  /** The vendor's wrapping of data (an envelope), if any. */
  wrap?(data: unknown): unknown;
  /** Its answer to a path it does not serve. */
  notFound: unknown;
}

export async function startVendorStub(vendor: VendorConventions): Promise<VendorStub> {
  let behaviour: VendorBehaviour = { kind: 'fixture' };
  const wrap = vendor.wrap ?? ((data: unknown) => data);
  const hanging = new Set<ServerResponse>();
  const requests: VendorStub['requests'] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    requests.push({ path: url.pathname, query: Object.fromEntries(url.searchParams) });
    const send = (status: number, body: unknown) =>
      response.writeHead(status, { 'Content-Type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
    const refused = vendor.refused(request);
    if (refused) return send(refused.status, refused.body);
    if (behaviour.kind === 'hang') return void hanging.add(response);
    if (behaviour.kind === 'status') return send(behaviour.status, behaviour.body);
    if (behaviour.kind === 'garbage') return send(200, wrap({ unexpected: true }));
    const data = vendor.fixtures[url.pathname];
    return data ? send(200, wrap(data)) : send(404, vendor.notFound);
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
