/**
 * Webhook receivers that answer slowly, as hostile or broken ones do: real TCP servers on
 * 127.0.0.1 speaking HTTP/1.1 by hand, so that each byte of the answer can be held back. Each
 * connection records when it opened, its request (webhook-id, body) and when it was closed.
 */
import { createServer, type Server, type Socket } from 'node:net';

export interface Connection {
  openedAt: number;
  /** When the whole request had arrived (undefined until then). */
  requestAt?: number;
  webhookId?: string;
  body?: string;
  closedAt?: number;
}

export interface SlowReceiver {
  url: string;
  connections: Connection[];
  /** Connections open now. */
  open(): number;
  /** The most connections open at once carrying the same webhook-id. */
  mostAtOnceWithOneId(): number;
  close(): Promise<void>;
}

export interface Trickle {
  /**
   * `body`: the status line and headers at once (`status`, a Content-Length of `bytes`), then
   * the body one byte every `intervalMs`. `headers`: the status line and headers themselves one
   * byte every `intervalMs` (a header `bytes` long), so no status is ever seen in time.
   */
  phase: 'body' | 'headers';
  status?: number;
  intervalMs: number;
  bytes: number;
  /** Requests answered this slowly; those after them get a 200 at once (default: all are slow). */
  slowRequests?: number;
}

const REASONS: Record<number, string> = { 200: 'OK', 500: 'Internal Server Error' };

/** Whole request read from a connection: its headers and body, or null while incomplete. */
function parseRequest(buffered: Buffer): { headers: Record<string, string>; body: string } | null {
  const end = buffered.indexOf('\r\n\r\n');
  if (end === -1) return null;
  const lines = buffered.subarray(0, end).toString('latin1').split('\r\n').slice(1);
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const length = Number(headers['content-length'] ?? 0);
  if (buffered.length < end + 4 + length) return null;
  return { headers, body: buffered.subarray(end + 4, end + 4 + length).toString('utf8') };
}

export async function slowReceiver(trickle: Trickle): Promise<SlowReceiver> {
  const connections: Connection[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    const connection: Connection = { openedAt: Date.now() };
    connections.push(connection);
    sockets.add(socket);
    let buffered = Buffer.alloc(0);
    let timer: NodeJS.Timeout | undefined;
    socket.on('error', () => undefined);
    socket.on('close', () => {
      connection.closedAt = Date.now();
      sockets.delete(socket);
      clearInterval(timer);
    });
    socket.on('data', (chunk: Buffer) => {
      if (connection.requestAt !== undefined) return;
      buffered = Buffer.concat([buffered, chunk]);
      const request = parseRequest(buffered);
      if (!request) return;
      connection.requestAt = Date.now();
      connection.webhookId = request.headers['webhook-id'];
      connection.body = request.body;
      const answered = connections.filter((other) => other.requestAt !== undefined).length;
      if (answered > (trickle.slowRequests ?? Number.POSITIVE_INFINITY)) {
        socket.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        return;
      }
      const status = trickle.status ?? 200;
      const statusLine = `HTTP/1.1 ${status} ${REASONS[status] ?? 'Status'}\r\n`;
      let pending: string;
      if (trickle.phase === 'body') {
        socket.write(`${statusLine}Content-Length: ${trickle.bytes}\r\nContent-Type: text/plain\r\n\r\n`);
        pending = '.'.repeat(trickle.bytes);
      } else {
        pending = `${statusLine}X-Slow: ${'.'.repeat(trickle.bytes)}\r\nContent-Length: 0\r\n\r\n`;
      }
      timer = setInterval(() => {
        if (socket.destroyed) return clearInterval(timer);
        socket.write(pending.slice(0, 1));
        pending = pending.slice(1);
        if (pending.length === 0) {
          clearInterval(timer);
          socket.end();
        }
      }, trickle.intervalMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hooks/slow`,
    connections,
    open: () => connections.filter((connection) => connection.closedAt === undefined).length,
    mostAtOnceWithOneId: () => {
      let most = 0;
      for (const connection of connections) {
        if (connection.webhookId === undefined) continue;
        const at = connection.openedAt;
        const together = connections.filter(
          (other) => other.webhookId === connection.webhookId && other.openedAt <= at && (other.closedAt ?? Number.POSITIVE_INFINITY) > at,
        ).length;
        most = Math.max(most, together);
      }
      return most;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
