/**
 * The addresses an API key may be used from (`allowed_ips`): IPv4 and IPv6 addresses and CIDR
 * networks, parsed to bytes and matched by prefix. An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`,
 * what a dual-stack socket reports for an IPv4 client) is the IPv4 address it maps, as a source
 * and as an entry alike. Pure: no I/O.
 */
import { isIP } from 'node:net';
import { boundedMemo } from '../bounded-memo.ts';

/** One entry: its network's address bytes (4 or 16) and its prefix length. */
export interface Network {
  bytes: Uint8Array;
  prefix: number;
}

const ipv4Bytes = (text: string): number[] => text.split('.').map(Number);

/** The bytes of an address (4 for IPv4, 16 for IPv6; a zone index `%eth0` is refused), or null. */
function addressBytes(text: string): Uint8Array | null {
  const kind = isIP(text);
  if (kind === 4) return Uint8Array.from(ipv4Bytes(text));
  if (kind !== 6 || text.includes('%')) return null;
  let head = text;
  let embedded: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    embedded = ipv4Bytes(text.slice(lastColon + 1));
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const [before = '', after] = head.split('::');
  const left = groups(before);
  const right = after === undefined ? [] : groups(after);
  const all = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = Uint8Array.from(all.flatMap((group) => [group >> 8, group & 0xff]));
  if (embedded.length === 4) bytes.set(embedded, 12);
  return bytes;
}

/** `::ffff:0:0/96`: the IPv6 addresses that stand for IPv4 ones. */
const isMapped = (bytes: Uint8Array): boolean =>
  bytes.length === 16 && bytes.subarray(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;

/** An address as matched: an IPv4-mapped IPv6 address as its IPv4 address. */
function canonical(bytes: Uint8Array, prefix: number): Network {
  return isMapped(bytes) && prefix >= 96 ? { bytes: bytes.slice(12), prefix: prefix - 96 } : { bytes, prefix };
}

/** Whether any bit past the first `prefix` is set. */
function hostBitsSet(bytes: Uint8Array, prefix: number): boolean {
  return bytes.some((byte, i) => {
    const kept = Math.min(8, Math.max(0, prefix - i * 8));
    return (byte & (0xff >> kept)) !== 0;
  });
}

/**
 * One `allowed_ips` entry as a network, or why it is not one: an address alone is that one
 * address (/32, /128); a CIDR's prefix is decimal digits within the family's length, and no bit
 * past it may be set (`10.0.0.1/8` is refused: `10.0.0.0/8` is meant, or `10.0.0.1` alone).
 */
export function parseNetwork(entry: string): Network | { problem: string } {
  const [address = '', prefixText, extra] = entry.split('/');
  const bytes = addressBytes(address);
  if (extra !== undefined || !bytes) return { problem: `"${clip(entry)}" is not an IPv4 or IPv6 address or CIDR network` };
  const bits = bytes.length * 8;
  if (prefixText === undefined) return canonical(bytes, bits);
  if (!/^[0-9]{1,3}$/.test(prefixText) || Number(prefixText) > bits) {
    return { problem: `"${clip(entry)}": the prefix length must be a whole number from 0 to ${bits}` };
  }
  const prefix = Number(prefixText);
  if (hostBitsSet(bytes, prefix)) {
    return { problem: `"${clip(entry)}" has bits set past its /${prefix} prefix: write the network's first address, or the address alone` };
  }
  return canonical(bytes, prefix);
}

const clip = (text: string) => (text.length > 60 ? `${text.slice(0, 59)}…` : text);

/** Whether `address` (the request's source) lies in one of the networks; an address that cannot be parsed lies in none. */
export function addressAllowed(address: string, networks: readonly Network[]): boolean {
  const parsed = addressBytes(address);
  if (!parsed) return false;
  const source = canonical(parsed, parsed.length * 8).bytes;
  return networks.some(({ bytes, prefix }) => {
    if (bytes.length !== source.length) return false;
    for (let bit = 0; bit < prefix; bit += 8) {
      const mask = (0xff << (8 - Math.min(8, prefix - bit))) & 0xff;
      const i = bit / 8;
      if (((source[i] ?? 0) & mask) !== ((bytes[i] ?? 0) & mask)) return false;
    }
    return true;
  });
}

/**
 * Each key's list parsed once per instance (a key is read on every one of its requests; parsing
 * 50 entries costs far more than matching them). Bounded: emptied at 1,000 lists.
 */
const parsedLists = boundedMemo<Network[]>(1_000);

/** Whether a key bound to `allowed` (as stored: null for anywhere) may be used from `address`. */
export function keyUsableFrom(allowed: readonly string[] | null, address: string): boolean {
  if (allowed === null) return true;
  const networks = parsedLists(allowed.join('\n'), () =>
    allowed.map(parseNetwork).filter((network): network is Network => 'bytes' in network),
  );
  return addressAllowed(address, networks);
}
