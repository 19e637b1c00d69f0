// The load loop on real sockets against servers that misbehave in the ways real ones do: closing
// after each answer, streaming chunked bodies, resetting, never answering, refusing connections.
// Every request is accounted for: answered, failed or timed out, never lost and never counted twice.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createSecureServer } from 'node:http2';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type LoadOptions, runLoad } from '../../bench/load.js';
import { freePort } from '../helpers/ports.js';
import { TEST_PAIRS } from '../helpers/transport.js';

/** Listens on a free loopback port; `close` ends the server and every connection it still has. */
async function listening(server: Server): Promise<{ origin: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

function loadOf(origin: string, overrides: Partial<LoadOptions> = {}): LoadOptions {
  return {
    origin,
    connections: 2,
    pipelining: 1,
    amount: 50,
    durationMs: undefined,
    ratePerSecond: undefined,
    timeoutMs: 5000,
    nextRequest: () => ({ method: 'GET', path: '/v1/pets', headers: {} }),
    expectedStatuses: new Set([200]),
    ...overrides,
  };
}

test('a server that closes after every answer: each request is answered once, on a new connection each time', async () => {
  let connections = 0;
  const server = createHttpServer((_request, response) => {
    response.writeHead(200, { connection: 'close', 'content-length': '2' }).end('[]');
  });
  server.on('connection', () => {
    connections += 1;
  });
  const api = await listening(server as unknown as Server);
  try {
    const result = await runLoad(loadOf(api.origin, { pipelining: 3 }));
    assert.equal(result.completed, 50, result.problems.join('; '));
    assert.equal(result.errors + result.timeouts + result.unexpected, 0, result.problems.join('; '));
    assert.equal(result.bodyBytes, 100);
    assert.ok(connections >= 50, `${connections} connections for 50 answers`);
  } finally {
    await api.close();
  }
});

test('chunked answers written in pieces are read whole, their bytes counted', async () => {
  const server = createHttpServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('[1,');
    setImmediate(() => response.end('2]'));
  });
  const api = await listening(server as unknown as Server);
  try {
    const result = await runLoad(loadOf(api.origin, { pipelining: 2 }));
    assert.equal(result.completed, 50, result.problems.join('; '));
    assert.equal(result.bodyBytes, 250);
  } finally {
    await api.close();
  }
});

test('a server that resets every connection: each request is one error, and the run ends', async () => {
  const server = createTcpServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
  const api = await listening(server);
  try {
    const result = await runLoad(loadOf(api.origin, { amount: 20 }));
    assert.equal(result.completed, 0);
    assert.equal(result.errors, 20);
    assert.match(result.problems[0] ?? '', /ECONNRESET|closed/);
  } finally {
    await api.close();
  }
});

test('a server that never answers: requests time out after timeoutMs and the run ends', async () => {
  const server = createTcpServer((socket) => socket.resume());
  const api = await listening(server);
  try {
    const result = await runLoad(loadOf(api.origin, { amount: 4, timeoutMs: 100 }));
    assert.equal(result.completed, 0);
    assert.equal(result.timeouts, 4);
    assert.match(result.problems[0] ?? '', /no answer within 100 ms/);
  } finally {
    await api.close();
  }
});

test('bytes that are not HTTP fail the requests on that connection as protocol errors', async () => {
  const server = createTcpServer((socket) => socket.on('data', () => socket.write('SSH-2.0-OpenSSH_9.2\r\n\r\n')));
  const api = await listening(server);
  try {
    const result = await runLoad(loadOf(api.origin, { amount: 6 }));
    assert.equal(result.completed, 0);
    assert.equal(result.errors, 6);
    assert.match(result.problems[0] ?? '', /HTTP_PROTOCOL_ERROR/);
  } finally {
    await api.close();
  }
});

test('nothing listening: every request is a connection error, and the run ends', async () => {
  const port = await freePort();
  const result = await runLoad(loadOf(`http://127.0.0.1:${port}`, { amount: 5 }));
  assert.equal(result.errors, 5);
  assert.match(result.problems[0] ?? '', /ECONNREFUSED/);
});

test('an abort stops sending: what was sent is answered, nothing more goes out', async () => {
  let requests = 0;
  const stop = new AbortController();
  const server = createHttpServer((_request, response) => {
    requests += 1;
    if (requests === 10) stop.abort();
    response.writeHead(200, { 'content-length': '2' }).end('[]');
  });
  const api = await listening(server as unknown as Server);
  try {
    const result = await runLoad(loadOf(api.origin, { amount: 1000, stopSignal: stop.signal }));
    assert.ok(result.completed >= 10 && result.completed <= 12, `${result.completed} answered`);
    assert.equal(requests, result.completed);
  } finally {
    await api.close();
  }
});

test('http2 with insecure: streams on HTTP/2 sessions to a self-signed server, every request answered once; without insecure, refused', async () => {
  let overHttp2 = 0;
  const server = createSecureServer(
    { allowHTTP1: true, cert: readFileSync(TEST_PAIRS.first.cert), key: readFileSync(TEST_PAIRS.first.key) },
    (request, response) => {
      if (request.httpVersion === '2.0') overHttp2 += 1;
      response.writeHead(request.method === 'POST' ? 201 : 200, { 'content-length': '2' }).end('[]');
    },
  );
  const api = await listening(server as unknown as Server);
  try {
    const origin = api.origin.replace('http:', 'https:');
    const post = {
      method: 'POST' as const,
      path: '/v1/pets',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    };
    const result = await runLoad(
      loadOf(origin, {
        http2: true,
        insecure: true,
        amount: 40,
        pipelining: 8,
        nextRequest: (index) => (index % 2 === 0 ? post : { method: 'GET', path: '/v1/pets', headers: {} }),
        expectedStatuses: new Set([200, 201]),
      }),
    );
    assert.equal(result.completed, 40, result.problems.join('; '));
    assert.deepEqual(result.statusCounts, { 200: 20, 201: 20 });
    assert.equal(result.bodyBytes, 80);
    assert.equal(overHttp2, 40);
    const refused = await runLoad(loadOf(origin, { http2: true, amount: 4 }));
    assert.equal(refused.completed, 0);
    assert.equal(refused.errors, 4);
    assert.match(refused.problems[0] ?? '', /self-signed certificate/);
    // The same over HTTP/1.1 on TLS: insecure trusts it there too.
    const overHttp1 = await runLoad(loadOf(origin, { insecure: true, amount: 10 }));
    assert.equal(overHttp1.completed, 10, overHttp1.problems.join('; '));
    assert.equal(overHttp2, 40, 'HTTP/1.1 unless asked');
  } finally {
    await api.close();
  }
});

test('an https origin: the requests go over TLS, and every one is answered', async (context) => {
  // A throwaway self-signed certificate for localhost (openssl is part of Debian and of CI's image).
  const dir = mkdtempSync(join(tmpdir(), 'bench-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-subj',
        '/CN=localhost',
        '-days',
        '1',
        '-keyout',
        'key.pem',
        '-out',
        'cert.pem',
      ],
      { stdio: 'ignore', cwd: dir },
    );
  } catch {
    context.skip('openssl is not installed: no certificate for the TLS test');
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  let secure = 0;
  const server = createHttpsServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    (request, response) => {
      if ((request.socket as Socket & { encrypted?: boolean }).encrypted === true) secure += 1;
      response.writeHead(200, { 'content-length': '2' }).end('[]');
    },
  );
  const api = await listening(server as unknown as Server);
  // The certificate is self-signed: trusted for this test only.
  const before = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  try {
    // An address, not a name: the client must then send no SNI (RFC 6066 section 3).
    const origin = api.origin.replace('http:', 'https:');
    const result = await runLoad(loadOf(origin, { amount: 30, pipelining: 2 }));
    assert.equal(result.completed, 30, result.problems.join('; '));
    assert.equal(result.bodyBytes, 60);
    assert.equal(secure, 30);
  } finally {
    if (before === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    else process.env.NODE_TLS_REJECT_UNAUTHORIZED = before;
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
