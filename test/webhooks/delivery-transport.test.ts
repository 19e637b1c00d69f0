// One delivery attempt against real receivers on loopback (allowPrivate opens it): what is sent, how
// each kind of answer comes back, redirects left unfollowed, the 64 KiB read cap, and the timeouts.
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { after, test } from 'node:test';
import {
  ANSWER_TEXT_BYTES,
  answerText,
  createDeliveryTransport,
  type DeliveryTransport,
} from '../../src/webhooks/delivery-transport.js';
import { closedPort, type Receiver, type ReceiverHandler, startReceiver } from './receiver.js';

const receivers: Receiver[] = [];
const transports: DeliveryTransport[] = [];
after(async () => {
  await Promise.all(transports.map((transport) => transport.close()));
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function receiver(handler: ReceiverHandler): Promise<Receiver> {
  const started = await startReceiver(handler);
  receivers.push(started);
  return started;
}

/** Resolves once the receiver's end of a connection has closed (a reset included). */
async function closed(socket: Socket | undefined): Promise<void> {
  assert.ok(socket !== undefined, 'no connection reached the receiver');
  if (!socket.destroyed) await new Promise((resolve) => socket.once('close', resolve));
}

function transport(timeoutMs = 5_000, connectTimeoutMs?: number): DeliveryTransport {
  const created = createDeliveryTransport({ allowPrivate: true, timeoutMs, connectTimeoutMs });
  transports.push(created);
  return created;
}

const EVENT = '{"id":"evt_1","type":"pet.created","timestamp":"2025-01-01T00:00:00Z","data":{}}';
const HEADERS = { 'content-type': 'application/json', 'webhook-id': 'evt_1' };

test('a 200 answer is a success: the receiver gets the POST as given, and the first 1 KiB of its answer is kept', async () => {
  const answer = `ok:${'a'.repeat(3_000)}`;
  const target = await receiver((_request, response) => response.end(answer));
  const result = await transport().send({ url: `${target.url}/hooks?x=1`, headers: HEADERS, body: EVENT });
  assert.equal(result.status, 200);
  assert.equal(result.error, null);
  assert.equal(result.responseText, answer.slice(0, ANSWER_TEXT_BYTES));
  assert.equal(result.retryAfter, undefined);
  assert.ok(Number.isInteger(result.durationMs) && result.durationMs >= 0);
  const [received] = target.requests;
  assert.equal(received?.method, 'POST');
  assert.equal(received?.path, '/hooks?x=1');
  assert.equal(received?.headers['content-type'], 'application/json');
  assert.equal(received?.headers['webhook-id'], 'evt_1');
  assert.equal(received?.body, EVENT);
});

test('500 and 410 come back with their status and text and no transport error; the worker decides', async () => {
  const target = await receiver((request, response) => {
    response.statusCode = request.url === '/gone' ? 410 : 500;
    response.end(request.url === '/gone' ? 'gone' : 'boom');
  });
  const sender = transport();
  const failed = await sender.send({ url: `${target.url}/broken`, headers: HEADERS, body: EVENT });
  assert.deepEqual([failed.status, failed.error, failed.responseText], [500, null, 'boom']);
  const gone = await sender.send({ url: `${target.url}/gone`, headers: HEADERS, body: EVENT });
  assert.deepEqual([gone.status, gone.error, gone.responseText], [410, null, 'gone']);
});

test('a 429 answer returns its Retry-After as sent', async () => {
  const target = await receiver((_request, response) => {
    response.writeHead(429, { 'retry-after': '120' }).end('slow down');
  });
  const result = await transport().send({ url: target.url, headers: HEADERS, body: EVENT });
  assert.equal(result.status, 429);
  assert.equal(result.retryAfter, '120');
  assert.equal(result.responseText, 'slow down');
});

test(
  'attempts hanging at one host do not hold back another subscription at the same host',
  { timeout: 120_000 },
  async () => {
    // The worker bounds attempts a subscription (8) and in all; the transport adds no bound a host, so
    // subscriptions that share a receiver's host (a relay, one service's several paths) stay apart.
    const hanging: Array<() => void> = [];
    const target = await receiver((request, response) => {
      if (request.url === '/hang') hanging.push(() => response.end());
      else response.end('ok');
    });
    const sender = transport(60_000);
    let hangsEnded = 0;
    const hangs = Array.from({ length: 12 }, () =>
      sender.send({ url: `${target.url}/hang`, headers: HEADERS, body: EVENT }).then(() => hangsEnded++),
    );
    while (hanging.length < 12) await new Promise((resolve) => setTimeout(resolve, 10));
    const result = await sender.send({ url: `${target.url}/ok`, headers: HEADERS, body: EVENT });
    assert.equal(result.status, 200);
    assert.equal(hangsEnded, 0, 'answered while all twelve still hang');
    for (const answer of hanging) answer();
    await Promise.all(hangs);
  },
);

test('a 302 is a failure with its status, and its Location never gets a request', async () => {
  const elsewhere = await receiver((_request, response) => response.end('should not be reached'));
  const target = await receiver((_request, response) => {
    response.writeHead(302, { location: `${elsewhere.url}/stolen` }).end('moved');
  });
  const result = await transport().send({ url: target.url, headers: HEADERS, body: EVENT });
  assert.equal(result.status, 302);
  assert.equal(result.error, 'redirect not followed');
  assert.equal(result.responseText, 'moved');
  assert.equal(target.requests.length, 1);
  assert.equal(elsewhere.connections, 0);
});

test('a 300 (Multiple Choices) is a redirect too, and not followed', async () => {
  const target = await receiver((_request, response) => {
    response.writeHead(300, { location: '/elsewhere' }).end();
  });
  const result = await transport().send({ url: target.url, headers: HEADERS, body: EVENT });
  assert.equal(result.status, 300);
  assert.equal(result.error, 'redirect not followed');
});

test('a 304 is a failure too, said as what it is: not a redirect, not a success', async () => {
  const target = await receiver((_request, response) => {
    response.writeHead(304).end();
  });
  const result = await transport().send({ url: target.url, headers: HEADERS, body: EVENT });
  assert.equal(result.status, 304);
  assert.equal(result.error, 'a 304 answer is not a success');
});

test('a receiver that never answers times the attempt out after timeoutMs', async () => {
  const target = await receiver(() => {});
  const result = await transport(200).send({ url: target.url, headers: HEADERS, body: EVENT });
  assert.equal(result.status, null);
  assert.equal(result.error, 'timed out after 200 ms');
  assert.equal(result.responseText, null);
  assert.equal(target.requests.length, 1);
  // Timers never fire early; the upper bound is generous for a busy machine.
  assert.ok(result.durationMs >= 190 && result.durationMs < 5_000, `${result.durationMs} ms`);
});

test('a 200 whose body does not end within timeoutMs is a failure that keeps the status and what came', async () => {
  const target = await receiver((_request, response) => {
    response.writeHead(200, { 'content-length': '100' });
    response.write('partial');
  });
  const result = await transport(200).send({ url: target.url, headers: HEADERS, body: EVENT });
  assert.equal(result.status, 200);
  assert.equal(result.error, 'timed out after 200 ms while reading the answer');
  assert.equal(result.responseText, 'partial');
});

test('a resolver that never answers fails the attempt by the connect timeout, named as such', async () => {
  const sender = createDeliveryTransport({
    allowPrivate: true,
    timeoutMs: 5_000,
    connectTimeoutMs: 100,
    lookup: () => {},
  });
  transports.push(sender);
  const result = await sender.send({ url: 'http://hooks.example.com/', headers: HEADERS, body: EVENT });
  assert.equal(result.status, null);
  assert.equal(result.error, 'connect timed out after 100 ms');
});

test('a 1 MiB answer is read no further than 64 KiB: the attempt ends, 1 KiB kept, the connection dropped', async () => {
  const target = await receiver((_request, response) => {
    response.writeHead(200, { 'content-length': String(1024 * 1024) }).end('b'.repeat(1024 * 1024));
  });
  const result = await transport().send({ url: target.url, headers: HEADERS, body: EVENT });
  assert.deepEqual([result.status, result.error], [200, null]);
  assert.equal(result.responseText, 'b'.repeat(ANSWER_TEXT_BYTES));
  // The kernel may have taken the whole answer, but a reset shows the client dropped it unread.
  await closed(target.sockets[0]);
  assert.equal(target.resets, 1);
});

test('an endless answer without Content-Length is cut after 64 KiB instead of waiting for its end', async () => {
  let dropped = false;
  const target = await receiver((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = 'c'.repeat(16 * 1024);
    const pump = () => {
      while (!response.destroyed && response.write(chunk));
      if (!response.destroyed) response.once('drain', pump);
    };
    response.on('close', () => (dropped = true));
    pump();
  });
  const result = await transport(5_000).send({ url: target.url, headers: HEADERS, body: EVENT });
  // Reading to the end would have run into the 5 s timeout; this attempt stopped by itself.
  assert.deepEqual([result.status, result.error], [200, null]);
  assert.equal(result.responseText, 'c'.repeat(ANSWER_TEXT_BYTES));
  await closed(target.sockets[0]);
  assert.equal(dropped, true);
});

test('a short answer read to its end leaves the connection open for the next attempts', async () => {
  const target = await receiver((_request, response) => response.end('ok'));
  const sender = transport();
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const result = await sender.send({ url: target.url, headers: HEADERS, body: EVENT });
    assert.equal(result.status, 200);
  }
  assert.equal(target.requests.length, 5);
  // undici may open a second connection while the first is being released; it reuses them after.
  assert.ok(target.connections < 5, `${target.connections} connections`);
  assert.ok(target.sockets.every((socket) => !socket.destroyed));
});

test('a closed port fails with status null and "connection refused"', async () => {
  const port = await closedPort();
  const result = await transport().send({ url: `http://127.0.0.1:${port}/`, headers: HEADERS, body: EVENT });
  assert.deepEqual([result.status, result.error, result.responseText], [null, 'connection refused', null]);
});

test('a malformed URL fails the attempt with the reason instead of throwing', async () => {
  const result = await transport().send({ url: 'ftp://hooks.example.com/', headers: HEADERS, body: EVENT });
  assert.deepEqual([result.status, result.error], [null, 'url must be an absolute http or https URL']);
});

test('bad timeouts are refused when the transport is made', () => {
  assert.throws(() => createDeliveryTransport({ allowPrivate: false, timeoutMs: 0 }), TypeError);
  assert.throws(() => createDeliveryTransport({ allowPrivate: false, connectTimeoutMs: 1.5 }), TypeError);
});

test('answer text is decoded as UTF-8 safely: a character cut at 1 KiB is left out, bad bytes and NUL become U+FFFD', () => {
  const cut = Buffer.from(`${'a'.repeat(1_023)}é`).subarray(0, 1_024);
  assert.equal(answerText(cut, true), 'a'.repeat(1_023));
  assert.equal(answerText(Buffer.from([0x6f, 0x6b, 0xff, 0x00]), false), 'ok\uFFFD\uFFFD');
  assert.equal(answerText(Buffer.from('ünïcödé'), false), 'ünïcödé');
});

test('an answer that is not valid HTTP is a failure said as such, not as an internal error code', async () => {
  const answers = [
    'HTTP/1.1 099 Too Low\r\ncontent-length: 0\r\n\r\n',
    'HTTP/1.1 2000 OK\r\ncontent-length: 0\r\n\r\n',
    'SMTP ready\r\n\r\n',
  ];
  for (const answer of answers) {
    const server = createServer((socket) => socket.once('data', () => socket.end(answer)));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const { port } = server.address() as AddressInfo;
      const result = await transport().send({ url: `http://127.0.0.1:${port}/`, headers: HEADERS, body: EVENT });
      assert.equal(result.status, null, answer);
      assert.equal(result.error, 'answer is not valid HTTP/1.1', answer);
    } finally {
      await new Promise((done) => server.close(done));
    }
  }
});
