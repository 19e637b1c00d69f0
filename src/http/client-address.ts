// The client address that failed-authentication limits are keyed by (README "Rate limits"): the
// socket's address, or the X-Forwarded-For entry the trusted proxy appended when one is configured.

import type { IncomingMessage } from 'node:http';
import { isIPv6 } from 'node:net';
import { remoteAddressOf } from './http2.js';

/**
 * An IPv6 client usually holds a whole /64, so keying by full address would let one client fill the
 * bounded table and evict its own entry; IPv6 addresses are keyed by their /64 prefix instead.
 * IPv4-mapped IPv6 addresses (`::ffff:1.2.3.4`) are keyed as the IPv4 address.
 */
export function addressKey(address: string): string {
  // Most clients are IPv4: an address without a colon is no IPv6 one, and needs no parsing at all.
  if (!address.includes(':')) return address;
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::')
    ? [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups]
    : headGroups;
  return `${groups
    .slice(0, 4)
    .map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** The address of the client of `req`: with `trustProxy`, the rightmost X-Forwarded-For entry (the one the proxy added). */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const last = typeof forwarded === 'string' ? forwarded.split(',').pop()?.trim() : undefined;
    if (last !== undefined && last.length > 0) return addressKey(last);
  }
  return addressKey(remoteAddressOf(req) ?? 'unknown');
}
