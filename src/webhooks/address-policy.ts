// Which IP addresses a webhook may be delivered to: a pure table of the special-purpose ranges the
// service refuses by default, so that a subscriber cannot make it send requests into its own network
// (loopback, the private LAN, the cloud metadata address). Every address not in the table is allowed.
// The operator's `allowPrivate` setting opens all of them; that decision belongs to the callers.
import { isIPv4, isIPv6 } from 'node:net';

/** The name of a rule that refuses an address; error messages quote it. */
export type AddressRule =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'site-local'
  | 'carrier-grade NAT'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'protocol assignment'
  | 'Teredo'
  | 'local-use NAT64'
  | 'discard-only'
  | 'reserved';

/**
 * One row of the table: either a range refused under `rule`, or a translation range whose addresses
 * carry an IPv4 address (at bit `ipv4AtBit` from the left) that decides for them.
 */
export type AddressRange =
  | { readonly cidr: string; readonly rule: AddressRule; readonly source: string }
  | { readonly cidr: string; readonly ipv4AtBit: number; readonly source: string };

/**
 * The ranges, in match order: the first row that holds an address decides. Registries behind them:
 * RFC 6890 and IANA's IPv4/IPv6 Special-Purpose Address Registries. Special ranges that the IANA
 * registry marks globally reachable are deliberately absent, hence allowed: 192.31.196.0/24 and
 * 192.175.48.0/24 (AS112, RFC 7535 and RFC 7534), 192.52.193.0/24 (AMT, RFC 7450), 2620:4f:8000::/48
 * (AS112-v6).
 */
export const ADDRESS_RANGES: readonly AddressRange[] = [
  // IPv4
  { cidr: '0.0.0.0/8', rule: 'unspecified', source: 'RFC 1122 §3.2.1.3 ("this network"), RFC 6890' },
  { cidr: '10.0.0.0/8', rule: 'private', source: 'RFC 1918 §3' },
  { cidr: '100.64.0.0/10', rule: 'carrier-grade NAT', source: 'RFC 6598' },
  { cidr: '127.0.0.0/8', rule: 'loopback', source: 'RFC 1122 §3.2.1.3' },
  // Holds the cloud metadata service, 169.254.169.254.
  { cidr: '169.254.0.0/16', rule: 'link-local', source: 'RFC 3927' },
  { cidr: '172.16.0.0/12', rule: 'private', source: 'RFC 1918 §3' },
  // Dummy, PCP and TURN anycast, NAT64 discovery: protocol endpoints, never a webhook receiver.
  { cidr: '192.0.0.0/24', rule: 'protocol assignment', source: 'RFC 6890 §2.2.2' },
  { cidr: '192.0.2.0/24', rule: 'documentation', source: 'RFC 5737 (TEST-NET-1)' },
  // The former 6to4 relay anycast, deprecated: a relay, never a receiver.
  { cidr: '192.88.99.0/24', rule: 'reserved', source: 'RFC 7526' },
  { cidr: '192.168.0.0/16', rule: 'private', source: 'RFC 1918 §3' },
  { cidr: '198.18.0.0/15', rule: 'benchmarking', source: 'RFC 2544 §C.2.2' },
  { cidr: '198.51.100.0/24', rule: 'documentation', source: 'RFC 5737 (TEST-NET-2)' },
  { cidr: '203.0.113.0/24', rule: 'documentation', source: 'RFC 5737 (TEST-NET-3)' },
  { cidr: '224.0.0.0/4', rule: 'multicast', source: 'RFC 5771' },
  // Before 240.0.0.0/4, which holds it, so that it gets its own name.
  { cidr: '255.255.255.255/32', rule: 'broadcast', source: 'RFC 919 §7, RFC 8190' },
  { cidr: '240.0.0.0/4', rule: 'reserved', source: 'RFC 1112 §4, RFC 6890' },

  // IPv6
  { cidr: '::/128', rule: 'unspecified', source: 'RFC 4291 §2.5.2' },
  { cidr: '::1/128', rule: 'loopback', source: 'RFC 4291 §2.5.3' },
  // IPv4-mapped: the socket connects to the IPv4 address itself.
  { cidr: '::ffff:0:0/96', ipv4AtBit: 96, source: 'RFC 4291 §2.5.5.2' },
  // NAT64 well-known prefix: the translator connects to the embedded IPv4 address (RFC 6052 §3.1
  // forbids non-global ones behind it; some translators do not check).
  { cidr: '64:ff9b::/96', ipv4AtBit: 96, source: 'RFC 6052 §2.1' },
  // Local-use NAT64: a translator of the operator's own network, with an address format of its choice.
  { cidr: '64:ff9b:1::/48', rule: 'local-use NAT64', source: 'RFC 8215' },
  { cidr: '100::/64', rule: 'discard-only', source: 'RFC 6666' },
  // Teredo carries the client's IPv4 address obfuscated; its relays send on to addresses we cannot vet.
  { cidr: '2001::/32', rule: 'Teredo', source: 'RFC 4380 §2.6' },
  { cidr: '2001:2::/48', rule: 'benchmarking', source: 'RFC 5180 §8' },
  { cidr: '2001:db8::/32', rule: 'documentation', source: 'RFC 3849' },
  // The rest of the IETF protocol block (ORCHID, AMT, AS112...): the IPv6 twin of 192.0.0.0/24.
  { cidr: '2001::/23', rule: 'protocol assignment', source: 'RFC 2928, RFC 6890 §2.2.3' },
  // 6to4: the packet travels in IPv4 to the address embedded after the prefix.
  { cidr: '2002::/16', ipv4AtBit: 16, source: 'RFC 3056 §2' },
  { cidr: '3fff::/20', rule: 'documentation', source: 'RFC 9637' },
  { cidr: 'fc00::/7', rule: 'private', source: 'RFC 4193 (unique local)' },
  { cidr: 'fe80::/10', rule: 'link-local', source: 'RFC 4291 §2.5.6' },
  { cidr: 'fec0::/10', rule: 'site-local', source: 'RFC 3879 (deprecated site-local)' },
  { cidr: 'ff00::/8', rule: 'multicast', source: 'RFC 4291 §2.7' },
];

/**
 * Only 2000::/3 is allocated for global unicast (RFC 4291 §2.4, IANA IPv6 Address Space): any other
 * IPv6 address not named above (IPv4-compatible ::a.b.c.d, SIIT's ::ffff:0:a.b.c.d, SRv6's 5f00::/16,
 * space IANA has not allocated) is refused as reserved.
 */
const GLOBAL_UNICAST_IPV6 = '2000::/3';

const IPV4_BITS = 32;
const IPV6_BITS = 128;

/** A range parsed once at load: the address's bits shifted right by `shift` equal `prefix` inside it. */
interface ParsedRange {
  readonly bits: typeof IPV4_BITS | typeof IPV6_BITS;
  readonly shift: bigint;
  readonly prefix: bigint;
  readonly row: AddressRange;
}

function parseRange(row: AddressRange): ParsedRange {
  const [base = '', lengthText = ''] = row.cidr.split('/');
  const lengthBits = Number(lengthText);
  const bits = isIPv4(base) ? IPV4_BITS : IPV6_BITS;
  if (!(isIPv4(base) || isIPv6(base)) || !Number.isInteger(lengthBits) || lengthBits < 0 || lengthBits > bits) {
    throw new TypeError(`address-policy: bad range ${row.cidr}`);
  }
  const shift = BigInt(bits - lengthBits);
  return { bits, shift, prefix: addressValue(base, bits) >> shift, row };
}

const PARSED_RANGES: readonly ParsedRange[] = ADDRESS_RANGES.map(parseRange);
const GLOBAL_UNICAST = parseRange({ cidr: GLOBAL_UNICAST_IPV6, rule: 'reserved', source: 'RFC 4291 §2.4' });

/** The bits of a dotted-quad IPv4 address that `isIPv4` accepted. */
function ipv4Value(ip: string): bigint {
  return ip.split('.').reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
}

/** The 16-bit groups of part of an IPv6 address (a dotted IPv4 tail counts as two groups). */
function ipv6Groups(part: string): number[] {
  if (part === '') return [];
  return part.split(':').flatMap((group) => {
    if (!group.includes('.')) return [Number.parseInt(group, 16)];
    const value = Number(ipv4Value(group));
    return [value >>> 16, value & 0xffff];
  });
}

/** The bits of an IPv6 address that `isIPv6` accepted; a zone (`%eth0`) does not change them. */
function ipv6Value(ip: string): bigint {
  const zoneAt = ip.indexOf('%');
  const text = zoneAt === -1 ? ip : ip.slice(0, zoneAt);
  const gapAt = text.indexOf('::');
  const head = ipv6Groups(gapAt === -1 ? text : text.slice(0, gapAt));
  const tail = gapAt === -1 ? [] : ipv6Groups(text.slice(gapAt + 2));
  const zeros = Array<number>(8 - head.length - tail.length).fill(0);
  return [...head, ...zeros, ...tail].reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

function addressValue(ip: string, bits: number): bigint {
  return bits === IPV4_BITS ? ipv4Value(ip) : ipv6Value(ip);
}

function inRange(value: bigint, bits: number, range: ParsedRange): boolean {
  return range.bits === bits && value >> range.shift === range.prefix;
}

function classifyValue(value: bigint, bits: number): AddressRule | undefined {
  for (const range of PARSED_RANGES) {
    if (!inRange(value, bits, range)) continue;
    if ('rule' in range.row) return range.row.rule;
    const ipv4 = (value >> BigInt(IPV6_BITS - range.row.ipv4AtBit - IPV4_BITS)) & 0xffff_ffffn;
    return classifyValue(ipv4, IPV4_BITS);
  }
  if (bits === IPV6_BITS && !inRange(value, bits, GLOBAL_UNICAST)) return 'reserved';
  return undefined;
}

/**
 * The rule that refuses `ip`, or undefined when webhooks may reach it. `ip` is an IPv4 address in
 * dotted-decimal or an IPv6 address (bracketed as URL hostnames are, or not; a zone is ignored).
 * Other IPv4 spellings (`127.1`, `0x7f.1`, `2130706433`) are the URL parser's to normalise first.
 * Addresses that carry an IPv4 address (IPv4-mapped, NAT64, 6to4) are judged by that address.
 * @throws TypeError when `ip` is not an IP address.
 */
export function classifyAddress(ip: string): AddressRule | undefined {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (isIPv4(bare)) return classifyValue(ipv4Value(bare), IPV4_BITS);
  if (isIPv6(bare)) return classifyValue(ipv6Value(bare), IPV6_BITS);
  throw new TypeError(`classifyAddress: not an IP address: ${JSON.stringify(ip)}`);
}
