/**
 * A ScrapeCreators stand-in on 127.0.0.1 for the `http` provider's tests: the vendor's paths,
 * its `x-api-key` check, its success envelope (`success`, `credits_remaining`, payload at top
 * level) and its error bodies (`{success:false, error, errorStatus, message}`). Responses are
 * small vendor-shaped fixtures; a test can make the next call fail, hang or answer garbage.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { envelope, FIXTURES } from './scrapecreators/index.ts';

export const STUB_KEY = 'sc-test-key';

type Behaviour =
  | { kind: 'fixture' }
  | { kind: 'status'; status: number; body: string }
  | { kind: 'hang' }
  | { kind: 'payload'; payload: unknown };

export interface StubRequest {
  path: string;
  query: Record<string, string>;
  apiKey: string | undefined;
}

export interface ScrapeCreatorsStub {
  baseUrl: string;
  requests: StubRequest[];
  /** Answer the next request with this behaviour (then back to fixtures). */
  next(behaviour: Behaviour): void;
  /** Answer every request not queued by `next` with this behaviour, from now on (fixtures again with `{ kind: 'fixture' }`). */
  always(behaviour: Behaviour): void;
  /** Called when a request arrives (before answering): for counting what happened before it. */
  onRequest: ((request: StubRequest) => void) | undefined;
  close(): Promise<void>;
}

export const vendorError = (status: number, error: string, message: string) =>
  JSON.stringify({ success: false, credits_remaining: 1000, error, errorStatus: status, message });

export async function startScrapeCreatorsStub(): Promise<ScrapeCreatorsStub> {
  const queue: Behaviour[] = [];
  let standing: Behaviour = { kind: 'fixture' };
  const hanging = new Set<ServerResponse>();
  let server: Server | undefined;
  const stub: ScrapeCreatorsStub = {
    baseUrl: '',
    requests: [],
    next: (behaviour) => queue.push(behaviour),
    always: (behaviour) => {
      standing = behaviour;
    },
    onRequest: undefined,
    close: async () => {
      for (const response of hanging) response.destroy();
      server?.closeAllConnections();
      await new Promise<void>((resolve) => server?.close(() => resolve()));
    },
  };
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const seen: StubRequest = {
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      apiKey: request.headers['x-api-key'] as string | undefined,
    };
    stub.requests.push(seen);
    stub.onRequest?.(seen);
    const send = (status: number, body: string) => response.writeHead(status, { 'Content-Type': 'application/json' }).end(body);
    if (seen.apiKey !== STUB_KEY) return send(401, vendorError(401, 'unauthorized', 'Invalid API key'));
    const behaviour = queue.shift() ?? standing;
    if (behaviour.kind === 'hang') {
      hanging.add(response);
      return;
    }
    if (behaviour.kind === 'status') return send(behaviour.status, behaviour.body);
    const payload = behaviour.kind === 'payload' ? behaviour.payload : FIXTURES[url.pathname];
    if (!payload) return send(404, vendorError(404, 'not_found', 'Endpoint not found'));
    return send(200, JSON.stringify(envelope(payload as object)));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  stub.baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return stub;
}
