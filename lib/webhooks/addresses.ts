/**
 * Which webhook URLs are accepted (docs/jobs.md, "Webhooks"): `https` URLs whose host is, and
 * resolves only to, public addresses. Loopback (`http://127.0.0.1`, `http://localhost`, `[::1]`,
 * over http or https) only where the deployment allows it (JOBS_WEBHOOK_ALLOW_LOOPBACK: npm start
 * and the tests). Checked when a URL is given (a 400) and again at each attempt, which connects to
 * the very address it checked (no second lookup that DNS rebinding could answer differently).
 *
 * Public means what the IANA special-purpose address registries say is globally reachable, read
 * strictly: an IPv6 address must be global unicast (2000::/3) and outside the special blocks in
 * it; an IPv4 address outside the private, shared, link-local, documentation, benchmarking,
 * protocol-assignment, multicast and reserved blocks. An address that stands for an IPv4 one
 * (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`) is judged as that IPv4 address: a
 * NAT64 gateway in a VPC would carry `64:ff9b::a9fe:a9fe` to the metadata service.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { webhooksConfig } from '../config.ts';

const LOOPBACK_V4 = new BlockList();
LOOPBACK_V4.addSubnet('127.0.0.0', 8, 'ipv4');

/** IPv4 that is never a webhook's destination: what is not the public internet. */
const NON_PUBLIC_V4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['169.254.0.0', 16], // link-local, the instance metadata service among it
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.88.99.0', 24], // 6to4 relay anycast, deprecated
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  NON_PUBLIC_V4.addSubnet(network, prefix, 'ipv4');
}

/** Special blocks inside global unicast (2000::/3). */
const NON_PUBLIC_V6 = new BlockList();
for (const [network, prefix] of [
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking (2001:2::/48), ORCHID
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: an IPv4 address inside, reached through relays
  ['3fff::', 20], // documentation (RFC 9637)
] as const) {
  NON_PUBLIC_V6.addSubnet(network, prefix, 'ipv6');
}

/** An IPv6 address's eight 16-bit groups (the address is valid: `isIP` said 6). */
function groupsOf(address: string): number[] {
  let text = address.split('%')[0] ?? '';
  // A trailing dotted quad is the last two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const [head = '', tail] = text.split('::');
  if (tail === undefined) return parse(head);
  const [first, last] = [parse(head), parse(tail)];
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}

const ipv4Of = (groups: number[]): string => {
  const [high = 0, low = 0] = groups.slice(6);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
};

type Kind = 'public' | 'loopback' | 'non-public';

function kindOfV4(address: string): Kind {
  if (LOOPBACK_V4.check(address, 'ipv4')) return 'loopback';
  return NON_PUBLIC_V4.check(address, 'ipv4') ? 'non-public' : 'public';
}

/** What an IP address is, as a webhook's destination. */
function kindOf(address: string): Kind {
  if (isIP(address) === 4) return kindOfV4(address);
  const groups = groupsOf(address);
  const leading = (count: number) => groups.slice(0, count).every((group) => group === 0);
  if (leading(7) && groups[7] === 1) return 'loopback';
  // IPv4-mapped (::ffff:0:0/96): the IPv4 address itself.
  if (leading(5) && groups[5] === 0xffff) return kindOfV4(ipv4Of(groups));
  // NAT64's well-known prefix (64:ff9b::/96): what the gateway would reach, never this machine.
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0))
    return kindOfV4(ipv4Of(groups)) === 'public' ? 'public' : 'non-public';
  // Outside global unicast: unspecified, IPv4-compatible, discard-only, NAT64 local-use
  // (64:ff9b:1::/48), SRv6, unique-local, site-local, link-local, multicast, unassigned.
  if (((groups[0] ?? 0) & 0xe000) !== 0x2000) return 'non-public';
  return NON_PUBLIC_V6.check(address.split('%')[0] ?? '', 'ipv6') ? 'non-public' : 'public';
}

/** Why an address may not receive a webhook, or null. */
export function addressRefusal(address: string, allowLoopback: boolean): string | null {
  const kind = kindOf(address);
  if (kind === 'loopback') return allowLoopback ? null : 'is a loopback address, which this deployment does not call';
  return kind === 'non-public' ? 'is a private, link-local or otherwise non-public address' : null;
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
export async function checkWebhookUrl(raw: string, allowLoopback = webhooksConfig().allowLoopback): Promise<CheckedUrl> {
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
  const loopback = loopbackName || (literal && kindOf(host) === 'loopback');
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

/**
 * A `lookup` for node:http(s) that answers the address that was checked, whatever DNS says now
 * (no second lookup that DNS rebinding could answer differently; TLS still verifies the URL's name).
 */
export const pinnedLookup =
  (address: string, family: 4 | 6) =>
  (_host: string, options: unknown, callback: (...args: unknown[]) => void): void => {
    if ((options as { all?: boolean }).all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
