// The drain's bookkeeping, one connection at a time, on stand-ins for a server, its sockets and its
// answers, with the clock in the test's hands: when a stop may close a connection as idle. (The same
// rules end to end, on real sockets: test/crash/keep-alive-stop.test.ts.)
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { test } from 'node:test';
import { ConnectionDrain, IDLE_CLOSE_MS } from '../../src/app/connection-drain.js';

/** A socket as the drain sees it: bytes read so far, and whether it was destroyed. */
class StandInSocket extends EventEmitter {
  bytesRead = 0;
  destroyed = false;
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

/** An answer: ended (all given to Node), finished (all written out), closed. */
class StandInResponse extends EventEmitter {
  writableEnded = false;
  writableFinished = false;
  headersSent = false;
  shouldKeepAlive = true;
  end(): void {
    this.writableEnded = true;
    this.headersSent = true;
  }
  /** Written out to the client, then closed, as Node does after the last byte. */
  sent(): void {
    this.writableFinished = true;
    this.emit('close');
  }
}

function setUp() {
  let nowMs = 1_000;
  const drain = new ConnectionDrain(() => nowMs);
  const server = new EventEmitter();
  drain.watch(server as unknown as Server);
  const socket = new StandInSocket();
  server.emit('connection', socket);
  const answers: StandInResponse[] = [];
  let answerAtOnce = true;
  const listener = drain.wrap((_req, res) => {
    if (answerAtOnce) (res as unknown as StandInResponse).end();
  });
  /** A request arrives on the socket (`bytes` long) and is answered at once or later. */
  const request = (bytes: number, atOnce: boolean): StandInResponse => {
    socket.bytesRead += bytes;
    answerAtOnce = atOnce;
    const res = new StandInResponse();
    answers.push(res);
    listener({ socket } as unknown as IncomingMessage, res as unknown as ServerResponse);
    return res;
  };
  /** Time passes, and the drain looks at its connections. */
  const check = (afterMs: number): void => {
    nowMs += afterMs;
    drain.closeIdle();
  };
  return { drain, socket, request, check };
}

test('an answer given at once: the connection is idle from when it is written out, and closed after two checks', () => {
  const { drain, socket, request, check } = setUp();
  const answer = request(80, true);
  drain.begin();
  check(IDLE_CLOSE_MS);
  check(IDLE_CLOSE_MS);
  assert.equal(socket.destroyed, false, 'a slow reader is still being sent its answer');
  answer.sent();
  check(IDLE_CLOSE_MS - 1);
  check(0);
  assert.equal(socket.destroyed, false, 'idle for less than IDLE_CLOSE_MS since it was written out');
  check(1);
  assert.equal(socket.destroyed, false, 'found idle once: not yet');
  check(0);
  assert.equal(socket.destroyed, true);
  assert.equal(drain.open, 0);
});

test('part of a next request arrived after an answer given at once: not idle, however long the stop', () => {
  const { drain, socket, request, check } = setUp();
  request(80, true).sent();
  socket.bytesRead += 20;
  drain.begin();
  for (let i = 0; i < 5; i++) check(IDLE_CLOSE_MS);
  assert.equal(socket.destroyed, false);
});

test('an answer still to come keeps its connection; once closed, the idle time counts from then', () => {
  const { drain, socket, request, check } = setUp();
  const answer = request(80, false);
  drain.begin();
  assert.equal(answer.shouldKeepAlive, false, 'the answer being prepared will say Connection: close');
  check(IDLE_CLOSE_MS);
  check(IDLE_CLOSE_MS);
  assert.equal(socket.destroyed, false);
  answer.end();
  answer.sent();
  check(IDLE_CLOSE_MS - 1);
  check(0);
  assert.equal(socket.destroyed, false, 'idle for less than IDLE_CLOSE_MS since its answer');
  check(1);
  check(0);
  assert.equal(socket.destroyed, true);
});

test('during a stop, a request answered at once says Connection: close, and its connection idles from its answer', () => {
  const { drain, socket, request, check } = setUp();
  drain.begin();
  check(IDLE_CLOSE_MS - 10);
  const answer = request(80, true);
  assert.equal(answer.shouldKeepAlive, false);
  answer.sent();
  check(10);
  check(0);
  assert.equal(socket.destroyed, false, 'answered 10 ms ago');
  check(IDLE_CLOSE_MS);
  check(0);
  assert.equal(socket.destroyed, true);
});
