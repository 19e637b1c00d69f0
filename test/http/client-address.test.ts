import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { addressKey, clientAddress } from '../../src/http/client-address.js';

const request = (remoteAddress: string, forwarded?: string): IncomingMessage =>
  ({
    socket: { remoteAddress },
    headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
  }) as unknown as IncomingMessage;

test('IPv4 addresses are their own key; IPv4-mapped IPv6 is keyed as IPv4', () => {
  assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
  assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7');
});

test('IPv6 addresses are keyed by their /64 prefix, however they are written', () => {
  assert.equal(addressKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:0DB8:0001:0002::9'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(addressKey('::1'), '0:0:0:0::/64');
});

test('X-Forwarded-For is used only when a proxy is trusted, and then its rightmost entry', () => {
  assert.equal(clientAddress(request('10.0.0.1', '198.51.100.1, 203.0.113.9'), false), '10.0.0.1');
  assert.equal(clientAddress(request('10.0.0.1', '198.51.100.1, 203.0.113.9'), true), '203.0.113.9');
  assert.equal(clientAddress(request('10.0.0.1'), true), '10.0.0.1');
  assert.equal(clientAddress(request('10.0.0.1', ' '), true), '10.0.0.1');
});
