/**
 * A job's webhook: which URLs are accepted, the Standard Webhooks signature, and one delivery.
 *
 * - Accepted: `https` URLs whose host is, and resolves only to, public addresses. Loopback
 *   (`http://127.0.0.1`, `http://localhost`, `[::1]`, over http or https) only where the
 *   deployment allows it (JOBS_WEBHOOK_ALLOW_LOOPBACK: npm start and the tests). Private,
 *   link-local (the cloud metadata address among them), unique-local, CGNAT, multicast and
 *   unspecified addresses never. Checked at creation (a 400) and again at each delivery, which
 *   connects to the very address it checked (no second lookup that DNS rebinding could answer
 *   differently). Redirects are not followed: a 3xx is a failed attempt.
 * - Signed (https://www.standardwebhooks.com): `webhook-id`, `webhook-timestamp` (seconds) and
 *   `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed by the job's secret
 *   `whsec_<base64 of 24 random bytes>` (the key is the base64-decoded part).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';
import { jobsConfig } from '../config.ts';

export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** The Standard Webhooks signature header's value for one message. */
export function webhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Never a webhook's destination: what is not the public internet. */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['169.254.0.0', 16], // link-local, the instance metadata service among it
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['fc00::', 7], // unique-local (fd00:ec2::254, the IPv6 metadata address, among it)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

/** IPv4 written as IPv6 (`::ffff:10.0.0.1`) is judged as the IPv4 address it is. */
const unmapped = (address: string): { address: string; family: 'ipv4' | 'ipv6' } => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return { address: mapped[1], family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
};

/** Why an address may not receive a webhook, or null. */
export function addressRefusal(raw: string, allowLoopback: boolean): string | null {
  const { address, family } = unmapped(raw);
  if (LOOPBACK.check(address, family)) return allowLoopback ? null : 'is a loopback address, which this deployment does not call';
  if (FORBIDDEN.check(address, family)) return 'is a private, link-local or otherwise non-public address';
  return null;
}

/** A webhook URL as checked: the URL and the address to connect to. */
export interface CheckedUrl {
  url: URL;
  address: string;
  family: 4 | 6;
}

/**
 * Checks a webhook URL and resolves its host; throws an Error whose message is the reason (the
 * caller turns it into a 400 issue or a failed attempt).
 */
export async function checkWebhookUrl(raw: string, allowLoopback = jobsConfig().allowLoopbackWebhooks): Promise<CheckedUrl> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('must be an absolute URL');
  }
  if (url.username || url.password) throw new Error('must not carry credentials');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(host) !== 0;
  const loopbackName = host === 'localhost' || host.endsWith('.localhost');
  const loopback = loopbackName || (literal && LOOPBACK.check(unmapped(host).address, unmapped(host).family));
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback && allowLoopback)) {
    throw new Error(allowLoopback ? 'must be an https URL (or http on a loopback address)' : 'must be an https URL');
  }
  let addresses: { address: string; family: number }[];
  if (literal) addresses = [{ address: host, family: isIP(host) }];
  else if (loopbackName) addresses = [{ address: '127.0.0.1', family: 4 }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw new Error(`its host ${host} does not resolve`);
    }
  }
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, allowLoopback);
    if (refusal) throw new Error(literal ? `its host ${refusal}` : `its host ${host} resolves to ${address}, which ${refusal}`);
  }
  const first = addresses[0];
  if (!first) throw new Error(`its host ${host} does not resolve`);
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

export interface WebhookAttempt {
  ok: boolean;
  /** The receiver's status, or the reason no status came back. */
  detail: string;
}

/**
 * POSTs one signed event to the URL, connecting to the checked address (TLS still verifies the
 * URL's own host name). A 2xx is success; anything else, a redirect included, is not.
 */
export async function postWebhook(
  target: CheckedUrl,
  secret: string,
  message: { id: string; body: string; timestampSeconds: number },
): Promise<WebhookAttempt> {
  const { url, address, family } = target;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(message.body)),
    'user-agent': 'workspace-service-webhooks',
    'webhook-id': message.id,
    'webhook-timestamp': String(message.timestampSeconds),
    'webhook-signature': webhookSignature(secret, message.id, message.timestampSeconds, message.body),
  };
  return new Promise<WebhookAttempt>((resolve) => {
    const outgoing = send(
      url,
      {
        method: 'POST',
        headers,
        timeout: jobsConfig().webhookTimeoutMs,
        // The address that was checked, whatever DNS says now.
        lookup: (_host, options, callback) => {
          if ((options as { all?: boolean }).all)
            (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
          else callback(null, address, family);
        },
      },
      (response) => {
        response.resume();
        const status = response.statusCode ?? 0;
        response.on('end', () => resolve({ ok: status >= 200 && status < 300, detail: `status ${status}` }));
        response.on('error', () => resolve({ ok: false, detail: `status ${status}, body cut` }));
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error('timed out')));
    outgoing.on('error', (error) => resolve({ ok: false, detail: error.message }));
    outgoing.end(message.body);
  });
}
