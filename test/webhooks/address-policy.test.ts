// The address policy of webhook delivery: every refused range from its first to its last address,
// the allowed neighbours just outside, IPv4 addresses carried inside IPv6 ones, and node:net's
// BlockList as an independent oracle for IPv4 and its IPv4-mapped forms.
import assert from 'node:assert/strict';
import { BlockList } from 'node:net';
import { test } from 'node:test';
import fc from 'fast-check';
import { ADDRESS_RANGES, type AddressRule, classifyAddress } from '../../src/webhooks/address-policy.js';

/** [address, the rule that refuses it or undefined when allowed], grouped by range. */
const IPV4_CASES: readonly (readonly [string, AddressRule | undefined])[] = [
  ['0.0.0.0', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  ['1.0.0.0', undefined],
  ['9.255.255.255', undefined],
  ['10.0.0.0', 'private'],
  ['10.255.255.255', 'private'],
  ['11.0.0.0', undefined],
  ['100.63.255.255', undefined],
  ['100.64.0.0', 'carrier-grade NAT'],
  ['100.127.255.255', 'carrier-grade NAT'],
  ['100.128.0.0', undefined],
  ['126.255.255.255', undefined],
  ['127.0.0.0', 'loopback'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.255', 'loopback'],
  ['128.0.0.0', undefined],
  ['169.253.255.255', undefined],
  ['169.254.0.0', 'link-local'],
  ['169.254.169.254', 'link-local'],
  ['169.254.255.255', 'link-local'],
  ['169.255.0.0', undefined],
  ['172.15.255.255', undefined],
  ['172.16.0.0', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.0', undefined],
  ['191.255.255.255', undefined],
  ['192.0.0.0', 'protocol assignment'],
  ['192.0.0.255', 'protocol assignment'],
  ['192.0.1.0', undefined],
  ['192.0.1.255', undefined],
  ['192.0.2.0', 'documentation'],
  ['192.0.2.255', 'documentation'],
  ['192.0.3.0', undefined],
  ['192.31.196.1', undefined],
  ['192.52.193.1', undefined],
  ['192.88.98.255', undefined],
  ['192.88.99.0', 'reserved'],
  ['192.88.99.255', 'reserved'],
  ['192.88.100.0', undefined],
  ['192.167.255.255', undefined],
  ['192.168.0.0', 'private'],
  ['192.168.255.255', 'private'],
  ['192.169.0.0', undefined],
  ['192.175.48.1', undefined],
  ['198.17.255.255', undefined],
  ['198.18.0.0', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['198.20.0.0', undefined],
  ['198.51.99.255', undefined],
  ['198.51.100.0', 'documentation'],
  ['198.51.100.255', 'documentation'],
  ['198.51.101.0', undefined],
  ['203.0.112.255', undefined],
  ['203.0.113.0', 'documentation'],
  ['203.0.113.255', 'documentation'],
  ['203.0.114.0', undefined],
  ['223.255.255.255', undefined],
  ['224.0.0.0', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['240.0.0.0', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['8.8.8.8', undefined],
  ['1.1.1.1', undefined],
];

const IPV6_CASES: readonly (readonly [string, AddressRule | undefined])[] = [
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::2', 'reserved'],
  // IPv4-compatible (deprecated) and SIIT forms are not IPv4-mapped: refused as not global unicast.
  ['::127.0.0.1', 'reserved'],
  ['::ffff:0:7f00:1', 'reserved'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b::a00:1', 'private'],
  ['64:ff9b::8.8.8.8', undefined],
  ['64:ff9b:1::', 'local-use NAT64'],
  ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'local-use NAT64'],
  ['100::', 'discard-only'],
  ['100::ffff:ffff:ffff:ffff', 'discard-only'],
  ['100:0:0:1::', 'reserved'],
  ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['2000::', undefined],
  ['2001::', 'Teredo'],
  ['2001:0:ffff:ffff:ffff:ffff:ffff:ffff', 'Teredo'],
  ['2001:1::1', 'protocol assignment'],
  ['2001:2::', 'benchmarking'],
  ['2001:2:0:ffff:ffff:ffff:ffff:ffff', 'benchmarking'],
  ['2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', 'protocol assignment'],
  ['2001:200::', undefined],
  ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', undefined],
  ['2001:db8::', 'documentation'],
  ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
  ['2001:db9::', undefined],
  ['2002:7f00:1::', 'loopback'],
  ['2002:a9fe:a9fe::1', 'link-local'],
  ['2002:c000:201::', 'documentation'],
  ['2002:808:808::', undefined],
  ['2606:4700:4700::1111', undefined],
  ['2620:4f:8000::1', undefined],
  ['3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff', undefined],
  ['3fff::', 'documentation'],
  ['3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
  ['3fff:1000::', undefined],
  ['4000::', 'reserved'],
  ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['fc00::', 'private'],
  ['fd12:3456::1', 'private'],
  ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private'],
  ['fe80::', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link-local'],
  ['fec0::', 'site-local'],
  ['feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'site-local'],
  ['ff00::', 'multicast'],
  ['ff02::1', 'multicast'],
  ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'multicast'],
];

test('every IPv4 range is refused from its first to its last address, and its neighbours are allowed', () => {
  for (const [address, rule] of IPV4_CASES) assert.equal(classifyAddress(address), rule, address);
});

test('every IPv6 range is refused from its first to its last address, and its neighbours are allowed', () => {
  for (const [address, rule] of IPV6_CASES) assert.equal(classifyAddress(address), rule, address);
});

test('an IPv4-mapped address is judged as its IPv4 address, in dotted or hexadecimal spelling', () => {
  for (const [address, rule] of IPV4_CASES) {
    const [a = 0, b = 0, c = 0, d = 0] = address.split('.').map(Number);
    const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
    assert.equal(classifyAddress(`::ffff:${address}`), rule, `::ffff:${address}`);
    assert.equal(classifyAddress(`::ffff:${hex}`), rule, `::ffff:${hex}`);
    assert.equal(classifyAddress(`0:0:0:0:0:FFFF:${hex}`), rule, `0:0:0:0:0:FFFF:${hex}`);
  }
  assert.equal(classifyAddress('::ffff:7f00:1'), 'loopback');
  assert.equal(classifyAddress('::ffff:a9fe:a9fe'), 'link-local');
});

/** The 16-bit groups of a 128-bit value, uncompressed. */
function ipv6Text(value: bigint): string {
  return Array.from({ length: 8 }, (_, index) => ((value >> BigInt(112 - 16 * index)) & 0xffffn).toString(16)).join(
    ':',
  );
}

function ipv4Text(value: number): string {
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join('.');
}

test('the first and the last address of every row of the table are refused', () => {
  for (const row of ADDRESS_RANGES) {
    const [base = '', lengthText = ''] = row.cidr.split('/');
    const lengthBits = Number(lengthText);
    const refused = (address: string) => classifyAddress(address) !== undefined;
    if (base.includes(':')) {
      const first = BigInt(`0x${expand(base)}`);
      const last = first | ((1n << BigInt(128 - lengthBits)) - 1n);
      assert.ok(refused(ipv6Text(first)), `${row.cidr}: ${ipv6Text(first)}`);
      assert.ok(refused(ipv6Text(last)), `${row.cidr}: ${ipv6Text(last)}`);
    } else {
      const first = base.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
      const last = first + 2 ** (32 - lengthBits) - 1;
      assert.ok(refused(ipv4Text(first)), `${row.cidr}: ${ipv4Text(first)}`);
      assert.ok(refused(ipv4Text(last)), `${row.cidr}: ${ipv4Text(last)}`);
    }
  }
});

/** The 32 hex digits of an IPv6 address written with `::`. */
function expand(address: string): string {
  const [head = '', tail = ''] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const all = address.includes('::')
    ? [...groups(head), ...Array<string>(8 - groups(head).length - groups(tail).length).fill('0'), ...groups(tail)]
    : groups(address);
  return all.map((group) => group.padStart(4, '0')).join('');
}

test('every row of the table cites the RFC behind it and parses as a range', () => {
  for (const row of ADDRESS_RANGES) {
    assert.match(row.source, /RFC \d+/, row.cidr);
    assert.match(row.cidr, /^[0-9a-f.:]+\/\d+$/, row.cidr);
  }
});

test('an IPv4 address carried by NAT64 or 6to4 is judged as itself', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 0xffff_ffff }), (value) => {
      const ipv4 = ipv4Text(value);
      const high = (value >>> 16).toString(16);
      const low = (value & 0xffff).toString(16);
      assert.equal(classifyAddress(`64:ff9b::${ipv4}`), classifyAddress(ipv4));
      assert.equal(classifyAddress(`2002:${high}:${low}::1`), classifyAddress(ipv4));
    }),
    { numRuns: 2_000 },
  );
});

test("node:net's BlockList, given the IPv4 rows, agrees on every IPv4 address and its mapped form", () => {
  // BlockList matches IPv4-mapped IPv6 addresses against IPv4 subnets itself: an independent oracle.
  const blockList = new BlockList();
  for (const row of ADDRESS_RANGES) {
    const [base = '', lengthText = ''] = row.cidr.split('/');
    if (!base.includes(':')) blockList.addSubnet(base, Number(lengthText), 'ipv4');
  }
  assert.equal(blockList.check('::ffff:7f00:1', 'ipv6'), true);
  const boundaries = IPV4_CASES.map(([address]) => address);
  const randomAddresses = fc.sample(fc.integer({ min: 0, max: 0xffff_ffff }), 5_000).map(ipv4Text);
  for (const address of [...boundaries, ...randomAddresses]) {
    const refused = classifyAddress(address) !== undefined;
    assert.equal(blockList.check(address, 'ipv4'), refused, address);
    assert.equal(blockList.check(`::ffff:${address}`, 'ipv6'), refused, `::ffff:${address}`);
    assert.equal(classifyAddress(`::ffff:${address}`) !== undefined, refused, `::ffff:${address}`);
  }
});

test('a string that is no IP address is a programmer error, not an allowed address', () => {
  for (const notAnAddress of ['', 'localhost', 'hooks.example.com', '127.1', '0x7f.0.0.1', '2130706433', '[::1']) {
    assert.throws(() => classifyAddress(notAnAddress), TypeError, notAnAddress);
  }
});
