// Expect: 100-continue (RFC 9110 §10.1.1): the 100 comes once the service wants the body, after the
// key and the limits are checked, so a refused request gets its final answer with no 100 before it and
// without the client sending its body for nothing.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { startServer, TEST_KEY, type TestServer } from '../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

/** Sends the head of a POST with Expect: 100-continue and returns the first bytes the server sends. */
async function firstAnswer(authorization: string): Promise<{ head: string; send(body: string): Promise<string> }> {
  const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const body = '{"name":"Rex","categoryId":1}';
  socket.write(
    `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${authorization}Content-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
  );
  while (!received.includes('\r\n\r\n')) await new Promise((resolve) => setTimeout(resolve, 5));
  return {
    head: received,
    async send() {
      socket.write(body);
      await once(socket, 'close');
      return received;
    },
  };
}

test('a request the service will read gets 100 Continue, then its answer', async () => {
  const first = await firstAnswer(`Authorization: Bearer ${TEST_KEY}\r\n`);
  assert.match(first.head, /^HTTP\/1\.1 100 Continue\r\n\r\n/);
  assert.match(await first.send(''), /\r\n\r\nHTTP\/1\.1 201 Created/);
});

test('a request refused before its body gets the refusal, with no 100 Continue', async () => {
  const refused = await firstAnswer('');
  assert.match(refused.head, /^HTTP\/1\.1 401 /);
  assert.doesNotMatch(refused.head, /100 Continue/);
});
