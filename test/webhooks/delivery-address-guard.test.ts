// The address guard of delivery: without allowPrivate no connection reaches a refused address, be it
// a literal in the URL or what a name resolves to (DNS rebinding), and with it the connection goes to
// exactly the address the resolver gave, once. Only loopback receivers are used; nothing leaves the host.
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { createDeliveryTransport, type DeliveryTransport } from '../../src/webhooks/delivery-transport.js';
import { firstRefusedAddress, type LookupAll } from '../../src/webhooks/guarded-connector.js';
import { type Receiver, startReceiver } from './receiver.js';

const receivers: Receiver[] = [];
const transports: DeliveryTransport[] = [];
after(async () => {
  await Promise.all(transports.map((transport) => transport.close()));
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function okReceiver(): Promise<Receiver> {
  const receiver = await startReceiver((_request, response) => response.end('ok'));
  receivers.push(receiver);
  return receiver;
}

function transport(allowPrivate: boolean, lookup?: LookupAll): DeliveryTransport {
  const created = createDeliveryTransport({
    allowPrivate,
    timeoutMs: 5_000,
    ...(lookup === undefined ? {} : { lookup }),
  });
  transports.push(created);
  return created;
}

/** A resolver that answers every name with `addresses` and records the names it was asked. */
function fixedLookup(addresses: readonly string[]): LookupAll & { readonly asked: string[] } {
  const asked: string[] = [];
  const answer: LookupAddress[] = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  const lookup = (
    hostname: string,
    _options: { all: true },
    callback: (error: null, found: LookupAddress[]) => void,
  ) => {
    asked.push(hostname);
    setImmediate(() => callback(null, answer));
  };
  return Object.assign(lookup, { asked });
}

const DELIVERY = { headers: { 'content-type': 'application/json' }, body: '{"id":"evt_1"}' };

test('a URL on 127.0.0.1 fails with the loopback rule, and no connection reaches the receiver', async () => {
  const target = await okReceiver();
  const result = await transport(false).send({ url: `${target.url}/hook`, ...DELIVERY });
  assert.equal(result.status, null);
  assert.equal(result.error, 'address 127.0.0.1 is loopback, which webhooks may not reach');
  assert.equal(result.responseText, null);
  assert.equal(target.connections, 0);
});

test('the IPv4-mapped and other spellings of 127.0.0.1 fail the same way, without a connection', async () => {
  const target = await okReceiver();
  const sender = transport(false);
  const spellings: readonly (readonly [string, string])[] = [
    [`http://[::ffff:127.0.0.1]:${target.port}/`, '::ffff:7f00:1'],
    [`http://2130706433:${target.port}/`, '127.0.0.1'],
    [`http://0x7f.1:${target.port}/`, '127.0.0.1'],
    [`http://[::1]:${target.port}/`, '::1'],
  ];
  for (const [url, address] of spellings) {
    const result = await sender.send({ url, ...DELIVERY });
    assert.equal(result.error, `address ${address} is loopback, which webhooks may not reach`, url);
  }
  assert.equal(target.connections, 0);
});

test('localhost, resolved by the system resolver, is refused as loopback', async () => {
  const target = await okReceiver();
  const result = await transport(false).send({ url: `http://localhost:${target.port}/`, ...DELIVERY });
  assert.equal(result.status, null);
  assert.match(result.error ?? '', /^address (127\.0\.0\.1|::1) is loopback, which webhooks may not reach$/);
  assert.equal(target.connections, 0);
});

test('a public-looking name that resolves to 127.0.0.1 (DNS rebinding) is refused, without a connection', async () => {
  const target = await okReceiver();
  const lookup = fixedLookup(['127.0.0.1']);
  const result = await transport(false, lookup).send({ url: `http://hooks.example.com:${target.port}/`, ...DELIVERY });
  assert.equal(result.error, 'address 127.0.0.1 is loopback, which webhooks may not reach');
  assert.deepEqual(lookup.asked, ['hooks.example.com']);
  assert.equal(target.connections, 0);
});

test('with allowPrivate the connection goes to exactly the address resolved, once, with the Host of the URL', async () => {
  const target = await okReceiver();
  const lookup = fixedLookup(['127.0.0.1']);
  const url = `http://hooks.example.com:${target.port}/in`;
  const result = await transport(true, lookup).send({ url, ...DELIVERY });
  assert.deepEqual([result.status, result.error], [200, null]);
  assert.deepEqual(lookup.asked, ['hooks.example.com']);
  const [received] = target.requests;
  assert.equal(received?.headers.host, `hooks.example.com:${target.port}`);
  assert.equal(received?.localAddress, '127.0.0.1');
});

test('over https the checked address is dialled with the URL host as TLS server name, and the certificate is checked', async () => {
  // A self-signed, test-only certificate for hooks.example.com, valid until 2126:
  // openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -days 36500 -nodes
  //   -subj /CN=hooks.example.com -addext subjectAltName=DNS:hooks.example.com
  const fixture = (name: string) => readFileSync(new URL(`fixtures/hooks.example.com.${name}`, import.meta.url));
  const serverNames: string[] = [];
  const server = createHttpsServer({
    key: fixture('key'),
    cert: fixture('crt'),
    SNICallback: (serverName, callback) => {
      serverNames.push(serverName);
      callback(null);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  const lookup = fixedLookup(['127.0.0.1']);
  const result = await transport(true, lookup).send({ url: `https://hooks.example.com:${port}/`, ...DELIVERY });
  // No CA vouches for it: the handshake reached the receiver and the client refused its certificate.
  assert.deepEqual([result.status, result.error], [null, 'TLS failed (DEPTH_ZERO_SELF_SIGNED_CERT)']);
  assert.deepEqual(serverNames, ['hooks.example.com']);
  assert.deepEqual(lookup.asked, ['hooks.example.com']);
});

test('a resolver that answers an error or nothing fails the attempt with the name, no connection made', async () => {
  const failing: LookupAll = (_hostname, _options, callback) => {
    const error: NodeJS.ErrnoException = new Error('getaddrinfo ENOTFOUND');
    error.code = 'ENOTFOUND';
    setImmediate(() => callback(error, []));
  };
  const missing = await transport(true, failing).send({ url: 'http://nowhere.example/', ...DELIVERY });
  assert.deepEqual([missing.status, missing.error], [null, 'DNS lookup failed for nowhere.example (ENOTFOUND)']);
  const empty = await transport(true, fixedLookup([])).send({ url: 'http://empty.example/', ...DELIVERY });
  assert.deepEqual([empty.status, empty.error], [null, 'DNS lookup failed for empty.example (ENODATA)']);
});

test('one refused address among the resolved ones refuses them all, whatever their order', () => {
  assert.equal(firstRefusedAddress(['8.8.8.8', '2606:4700:4700::1111'], false), undefined);
  const refusal = firstRefusedAddress(['8.8.8.8', '10.0.0.7', '127.0.0.1'], false);
  assert.deepEqual([refusal?.address, refusal?.rule], ['10.0.0.7', 'private']);
  assert.equal(refusal?.message, 'address 10.0.0.7 is private, which webhooks may not reach');
  assert.equal(firstRefusedAddress(['fd00::1', '8.8.8.8'], false)?.rule, 'private');
  assert.equal(firstRefusedAddress(['::ffff:169.254.169.254'], false)?.rule, 'link-local');
  assert.equal(firstRefusedAddress(['127.0.0.1', '169.254.169.254'], true), undefined);
});
