// A body read that starts only after the client has gone (the request waited on a limiter or an
// Idempotency-Key claim across the network meanwhile) ends at once with ClientGoneError instead of
// waiting for data that will never come; so a graceful stop never waits on such a request.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { test } from 'node:test';
import { ClientGoneError, readJsonBody } from '../../src/http/body.js';

test('reading the body of a request whose connection is gone rejects with ClientGoneError', async () => {
  let arrived: (req: IncomingMessage) => void = () => {};
  const request = new Promise<IncomingMessage>((resolve) => {
    arrived = resolve;
  });
  const server = createServer((req) => arrived(req));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as { port: number };
    const socket = connect(port, '127.0.0.1');
    // Headers promise 100 bytes; two arrive, then the client goes away.
    socket.write(
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"',
    );
    const req = await request;
    socket.destroy();
    await new Promise((resolve) => req.socket.once('close', resolve));
    await assert.rejects(readJsonBody(req, 64 * 1024, ['application/json']), ClientGoneError);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
