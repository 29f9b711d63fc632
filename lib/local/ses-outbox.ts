/**
 * The local form of Amazon SES for `npm start` and the tests: an endpoint that answers SES API
 * v2's `SendEmail` (`POST /v2/email/outbound-emails`, JSON) as SES does, and instead of sending
 * the message writes it to the outbox folder as one JSON file `{ id, to, subject, text,
 * accept_url, invitation_id, organization_id, sent_at }` (docs/invitations.md), under a temporary
 * name and then renamed, so that a reader never sees half a file. The functions send through the
 * SES client as deployed (lib/mail/email.ts, pointed here by SES_ENDPOINT); nothing of this
 * module ships in a bundle.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** Where the local server answers SES's API (the client's endpoint: SES_ENDPOINT). */
export const LOCAL_SES_PREFIX = '/local-ses';
const SEND_EMAIL_PATH = '/v2/email/outbound-emails';

/** Whether a request is SES's SendEmail at this endpoint (`prefix` the path it is served under). */
export const isSendEmailCall = (method: string | undefined, pathname: string, prefix = LOCAL_SES_PREFIX): boolean =>
  method === 'POST' && pathname === `${prefix}${SEND_EMAIL_PATH}`;

export interface OutboxMessage {
  id: string;
  to: string;
  subject: string;
  text: string;
  /** The first link of the text to the console with an invitation (`…#invitation=…`); null when there is none. */
  accept_url: string | null;
  invitation_id: string | null;
  organization_id: string | null;
  sent_at: string;
}

interface SendEmailInput {
  FromEmailAddress?: string;
  Destination?: { ToAddresses?: string[] };
  Content?: { Simple?: { Subject?: { Data?: string }; Body?: { Text?: { Data?: string } } } };
  EmailTags?: { Name?: string; Value?: string }[];
}

const badRequest = (message: string) => ({ status: 400, body: { message }, headers: { 'x-amzn-ErrorType': 'BadRequestException' } });

/**
 * Answers one SendEmail call: its status, JSON body and SES's error-type header; the message is in
 * `outboxDir` once this returns 200.
 */
export function answerSendEmail(
  body: string,
  outboxDir: string,
  now = new Date(),
): { status: number; body: unknown; headers: Record<string, string> } {
  let input: SendEmailInput;
  try {
    input = JSON.parse(body || '{}') as SendEmailInput;
  } catch {
    return badRequest('the body is not JSON');
  }
  const to = input.Destination?.ToAddresses ?? [];
  const simple = input.Content?.Simple;
  if (!input.FromEmailAddress || to.length !== 1 || !simple?.Subject?.Data || !simple.Body?.Text?.Data)
    return badRequest('this stand-in sends simple text emails to one address, from FromEmailAddress');
  const text = simple.Body.Text.Data;
  const tags = Object.fromEntries((input.EmailTags ?? []).map((tag) => [tag.Name ?? '', tag.Value ?? '']));
  const message: OutboxMessage = {
    id: randomUUID(),
    to: to[0] ?? '',
    subject: simple.Subject.Data,
    text,
    accept_url: /\S+#invitation=\S+/.exec(text)?.[0] ?? null,
    invitation_id: tags.invitation_id ?? null,
    organization_id: tags.organization_id ?? null,
    sent_at: now.toISOString(),
  };
  mkdirSync(outboxDir, { recursive: true });
  const name = `${message.sent_at.replaceAll(':', '-')}-${message.id}.json`;
  const temporary = join(outboxDir, `.${name}.tmp`);
  writeFileSync(temporary, `${JSON.stringify(message, null, 2)}\n`);
  renameSync(temporary, join(outboxDir, name));
  return { status: 200, body: { MessageId: message.id }, headers: {} };
}

/** The messages in an outbox folder (its finished files only), oldest first. */
export function readOutbox(outboxDir: string): OutboxMessage[] {
  if (!existsSync(outboxDir)) return [];
  return readdirSync(outboxDir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => JSON.parse(readFileSync(join(outboxDir, name), 'utf8')) as OutboxMessage)
    .sort((a, b) => (a.sent_at < b.sent_at ? -1 : a.sent_at > b.sent_at ? 1 : 0));
}

export interface LocalSes {
  /** SES's endpoint for the client (SES_ENDPOINT). */
  endpoint: string;
  outboxDir: string;
  close(): Promise<void>;
}

/**
 * The stand-in on a port of its own, for what runs without the local server (the bench): SES's
 * SendEmail answered as above, into `outboxDir`.
 */
export async function startLocalSes(outboxDir: string): Promise<LocalSes> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (!isSendEmailCall(request.method, new URL(request.url ?? '/', 'http://local').pathname, '')) {
        response.writeHead(404).end();
        return;
      }
      const answer = answerSendEmail(Buffer.concat(chunks).toString('utf8'), outboxDir);
      response.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    outboxDir,
    close: () =>
      new Promise<void>((closed) => {
        server.close(() => closed());
        // The SDK keeps its sockets alive: closing waits for none of them.
        server.closeAllConnections();
      }),
  };
}
