// The transport the black-box HTTP tests speak to the services they start (test/helpers/server.ts):
// plain HTTP/1.1 by default, or, set by test/tls/contract-over-*.test.ts, HTTP/1.1 over TLS or HTTP/2
// over TLS, so that the same contract files run over each. The test certificates are
// test/fixtures/tls/ (its README says how they were made).
import { readFileSync } from 'node:fs';
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { fileURLToPath } from 'node:url';

export type Transport = 'http' | 'https' | 'h2';

/** The variable that picks the transport (unset: plain HTTP). */
export const TRANSPORT_VARIABLE = 'ANIMAL_STORE_TEST_TRANSPORT';

/** The transport of this run. */
export function testTransport(): Transport {
  const value = process.env[TRANSPORT_VARIABLE];
  if (value === undefined || value === '' || value === 'http') return 'http';
  if (value === 'https' || value === 'h2') return value;
  throw new Error(`${TRANSPORT_VARIABLE} must be http, https or h2, not "${value}"`);
}

function fixture(name: string): string {
  return fileURLToPath(new URL(`../fixtures/tls/${name}`, import.meta.url));
}

/** The two test pairs: self-signed, for localhost, 127.0.0.1 and ::1. */
export const TEST_PAIRS = {
  first: { cert: fixture('first.crt'), key: fixture('first.key') },
  second: { cert: fixture('second.crt'), key: fixture('second.key') },
} as const;

/** Both test certificates, as a client's trusted authorities: either pair is trusted. */
export const TEST_CA = Buffer.concat([readFileSync(TEST_PAIRS.first.cert), readFileSync(TEST_PAIRS.second.cert)]);

/** The service options of `transport`: the first test pair for the TLS ones. */
export function serviceOptionsFor(transport: Transport): { tlsCert?: string; tlsKey?: string } {
  return transport === 'http' ? {} : { tlsCert: TEST_PAIRS.first.cert, tlsKey: TEST_PAIRS.first.key };
}

/** undici Agent and Client options of `transport`: the test authorities, and HTTP/2 by ALPN for h2. */
export function undiciOptionsFor(transport: Transport): { allowH2?: boolean; connect?: { ca: Buffer } } {
  if (transport === 'http') return {};
  return { connect: { ca: TEST_CA }, ...(transport === 'h2' && { allowH2: true }) };
}

/**
 * The skip reason of a test that writes HTTP/1.1 bytes itself (framing, smuggling shapes, a request
 * held half-sent): such tests run over plain HTTP and over TLS (raw-http.ts opens TLS for an https
 * address), and are no test of HTTP/2.
 */
export function rawHttp1Only(): string | false {
  return testTransport() === 'h2' ? 'writes HTTP/1.1 bytes itself: run over http and https' : false;
}

/** A connection to `url`'s host and port, over TLS (offering HTTP/1.1 only) for an https address. */
export function connectRaw(url: string): Socket {
  const { protocol, hostname, port } = new URL(url);
  const host = hostname.replace(/^\[|\]$/g, '');
  if (protocol === 'https:') return connectTls({ host, port: Number(port), ca: TEST_CA, ALPNProtocols: ['http/1.1'] });
  return connectTcp(Number(port), host);
}

/**
 * The Connection field of an answer after which the connection is closed (an unread body): none over
 * HTTP/2, which has no such field and closes the request's stream instead (docs/deployment.md).
 */
export function connectionClose(): 'close' | undefined {
  return testTransport() === 'h2' ? undefined : 'close';
}

/**
 * The skip reason of a test of what undici cannot send over HTTP/2 (it sends no body on GET, HEAD or
 * DELETE, and joins a repeated field into one), or false; test/tls/tls.test.ts sends those with
 * node:http2 and curl instead.
 */
export function undiciHttp2Cannot(what: string): string | false {
  return testTransport() === 'h2' ? `undici over HTTP/2 ${what}: test/tls/tls.test.ts covers it` : false;
}

/**
 * Whether a field value with white space at either end reaches the service: over HTTP/2 such a field
 * is malformed (RFC 9113 §8.2.1) and Node's HTTP/2 layer drops it, where HTTP/1.1 strips the white space.
 */
export function paddedFieldsArrive(): boolean {
  return testTransport() !== 'h2';
}
