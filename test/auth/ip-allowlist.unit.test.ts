/**
 * The addresses an API key may be used from: what `allowed_ips` accepts (addresses and CIDR
 * networks of both families, no bit past a prefix) and how a request's source is matched (by
 * prefix; an IPv4-mapped IPv6 source as its IPv4 address).
 */
import { describe, expect, it } from 'vitest';
import { keyUsableFrom, parseNetwork } from '../../lib/auth/ip-allowlist.ts';

const problemOf = (entry: string) => {
  const parsed = parseNetwork(entry);
  return 'problem' in parsed ? parsed.problem : null;
};

describe('parseNetwork', () => {
  it.each([
    ['203.0.113.7', 32],
    ['203.0.113.0/24', 24],
    ['0.0.0.0/0', 0],
    ['2001:db8::1', 128],
    ['2001:db8::/32', 32],
    ['::/0', 0],
    ['::1', 128],
    ['fe80::/10', 10],
    ['2001:db8:0:0:0:0:0:0/48', 48],
    ['::ffff:10.0.0.0/104', 8],
    ['::ffff:203.0.113.7', 32],
  ])('accepts %s (prefix %i as matched)', (entry, prefix) => {
    const parsed = parseNetwork(entry);
    expect('problem' in parsed ? parsed.problem : parsed.prefix).toBe(prefix);
  });

  it.each([
    ['10.0.0.1/8', 'has bits set past its /8 prefix'],
    ['203.0.113.128/24', 'has bits set past its /24 prefix'],
    ['2001:db8::1/32', 'has bits set past its /32 prefix'],
    ['10.0.0.0/33', 'the prefix length must be a whole number from 0 to 32'],
    ['2001:db8::/129', 'the prefix length must be a whole number from 0 to 128'],
    ['10.0.0.0/', 'the prefix length must be a whole number from 0 to 32'],
    ['10.0.0.0/+8', 'the prefix length must be a whole number from 0 to 32'],
    ['10.0.0.0/8/8', 'is not an IPv4 or IPv6 address or CIDR network'],
    ['10.0.0', 'is not an IPv4 or IPv6 address or CIDR network'],
    ['10.0.0.256', 'is not an IPv4 or IPv6 address or CIDR network'],
    ['010.0.0.1', 'is not an IPv4 or IPv6 address or CIDR network'],
    ['fe80::1%eth0', 'is not an IPv4 or IPv6 address or CIDR network'],
    ['example.com', 'is not an IPv4 or IPv6 address or CIDR network'],
    ['', 'is not an IPv4 or IPv6 address or CIDR network'],
    [' 10.0.0.1', 'is not an IPv4 or IPv6 address or CIDR network'],
  ])('refuses %j: %s', (entry, problem) => {
    expect(problemOf(entry)).toContain(problem);
  });
});

describe('keyUsableFrom', () => {
  const allowed = ['203.0.113.0/24', '198.51.100.7', '2001:db8::/32'];

  it('lets anywhere through when the key is bound to nothing', () => {
    expect(keyUsableFrom(null, '192.0.2.1')).toBe(true);
    expect(keyUsableFrom(null, '')).toBe(true);
  });

  it.each([
    ['203.0.113.0', true],
    ['203.0.113.255', true],
    ['203.0.114.0', false],
    ['198.51.100.7', true],
    ['198.51.100.8', false],
    ['2001:db8:ffff::1', true],
    ['2001:db9::1', false],
    ['::ffff:203.0.113.9', true],
    ['::FFFF:198.51.100.7', true],
    ['::ffff:cb00:7109', true],
    ['::ffff:192.0.2.1', false],
    ['::203.0.113.9', false],
    ['', false],
    ['not an address', false],
  ])('from %j: %s', (source, usable) => {
    expect(keyUsableFrom(allowed, source)).toBe(usable);
  });

  it('matches an IPv4-mapped IPv6 entry as the IPv4 network it stands for', () => {
    expect(keyUsableFrom(['::ffff:10.0.0.0/104'], '10.200.0.1')).toBe(true);
    expect(keyUsableFrom(['::ffff:10.0.0.0/104'], '11.0.0.1')).toBe(false);
  });

  it('matches prefixes that end inside a byte, and /0 of each family alone', () => {
    expect(keyUsableFrom(['10.0.0.0/9'], '10.127.255.255')).toBe(true);
    expect(keyUsableFrom(['10.0.0.0/9'], '10.128.0.0')).toBe(false);
    expect(keyUsableFrom(['0.0.0.0/0'], '192.0.2.1')).toBe(true);
    expect(keyUsableFrom(['0.0.0.0/0'], '2001:db8::1')).toBe(false);
    expect(keyUsableFrom(['::/0'], '2001:db8::1')).toBe(true);
  });
});
