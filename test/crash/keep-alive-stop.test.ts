// A graceful stop, connection by connection: an answer being prepared when the stop begins says
// `Connection: close`, a kept-alive idle connection is answered 503 rather than cut while the port is
// open, and one that has received part of a request is not closed as idle. Then under keep-alive
// load: clients on kept-alive connections send requests in a loop while the service stops. Every request the service began is answered and its answer arrives; every
// answer to a request sent once the stop began says `Connection: close` (a 503 `unavailable`); and a
// request fails at the socket only if it was sent after the port had closed. The outcomes are counted
// (test diagnostics); what clients see is worded in docs/storage.md ("What clients see during a stop").
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { Agent, request } from 'undici';
import { createAnimalStore } from '../../src/app/create-animal-store.js';
import { createLogger } from '../../src/logging/logger.js';

const KEY = 'keep-alive-stop-key-0123456789';
const CLIENTS = 32;

interface Outcome {
  id: string;
  /** Sent after app.close() was called. */
  sentWhileStopping: boolean;
  /** The port still took connections when the request was sent. */
  sentWhileListening: boolean;
  status?: number;
  connection?: string;
  code?: string;
}

test(
  'a stop under keep-alive load: every request begun is answered; socket errors only once the port has closed',
  { timeout: 120_000 },
  async (t) => {
    const logged = new Map<string, number>();
    const logger = createLogger({
      level: 'info',
      write: (line) => {
        const entry = JSON.parse(line) as { msg: string; requestId?: string; status?: number };
        if (entry.msg === 'request' && entry.requestId !== undefined) logged.set(entry.requestId, entry.status ?? 0);
      },
    });
    const app = await createAnimalStore({
      keys: [{ key: KEY, plan: 'enterprise', perMinute: 100_000_000, perDay: 1_000_000_000 }],
      logger,
    });
    const { apiUrl, server } = await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (server.address() as AddressInfo).port;
    // Kept-alive connections that outlive the stop: only the service ends them.
    const agent = new Agent({ connections: CLIENTS, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
    const outcomes: Outcome[] = [];
    let stopping = false;
    let done = false;
    let answered = 0;
    const client = async (n: number): Promise<void> => {
      for (let i = 0; !done; i++) {
        const outcome: Outcome = {
          id: `ka-${n}-${i}`,
          sentWhileStopping: stopping,
          sentWhileListening: server.listening,
        };
        outcomes.push(outcome);
        try {
          const response = await request(`${apiUrl}/pets?limit=1`, {
            dispatcher: agent,
            headers: { authorization: `Bearer ${KEY}`, 'x-request-id': outcome.id },
          });
          await response.body.dump();
          outcome.status = response.statusCode;
          outcome.connection = String(response.headers.connection ?? '');
          answered++;
        } catch (error) {
          outcome.code = (error as { code?: string }).code ?? String(error);
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));
    while (answered < 500) await new Promise((resolve) => setTimeout(resolve, 5));
    stopping = true;
    await app.close();
    done = true;
    await Promise.all(clients);
    await agent.close();

    const count = new Map<string, number>();
    for (const outcome of outcomes) {
      const kind = outcome.code ?? `${outcome.status}${outcome.sentWhileStopping ? ' (sent while stopping)' : ''}`;
      count.set(kind, (count.get(kind) ?? 0) + 1);
    }
    t.diagnostic(`outcomes of ${outcomes.length} requests: ${JSON.stringify(Object.fromEntries(count))}`);

    const byId = new Map(outcomes.map((outcome) => [outcome.id, outcome]));
    for (const [id, status] of logged)
      assert.equal(byId.get(id)?.status, status, `request ${id} was begun (answered ${status}) and its answer arrived`);
    for (const outcome of outcomes) {
      if (outcome.code !== undefined) {
        // Refused: nothing listened. Otherwise a kept-alive connection closed as idle, after the port closed.
        if (outcome.code !== 'ECONNREFUSED')
          assert.ok(
            !outcome.sentWhileListening,
            `${outcome.id} failed (${outcome.code}) though sent while the port was open`,
          );
        assert.ok(!logged.has(outcome.id));
        continue;
      }
      assert.ok(logged.has(outcome.id), `${outcome.id} was answered, so logged`);
      if (outcome.sentWhileStopping) {
        assert.equal(outcome.status, 503, outcome.id);
        assert.equal(outcome.connection, 'close', `${outcome.id}: the answer says the connection closes`);
      }
      if (outcome.status === 503) assert.equal(outcome.connection, 'close', outcome.id);
    }
    assert.ok(
      outcomes.some((outcome) => outcome.status === 503),
      'requests outstanding when the stop began were answered 503',
    );
    // Nothing listens any more.
    await assert.rejects(request(`http://127.0.0.1:${port}/healthz`), { code: 'ECONNREFUSED' });
  },
);

/** A raw connection: what it has received, and whether the service has closed it. */
function rawConnection(port: number): { socket: Socket; received(): string; closed: Promise<unknown> } {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  socket.on('error', () => {});
  return { socket, received: () => text, closed: once(socket, 'close') };
}

async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > deadline) assert.fail(`${what} did not happen`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test('each connection at a stop: told to close in its next answer, never cut while a request is arriving', async () => {
  const app = await createAnimalStore({
    keys: [{ key: KEY, plan: 'enterprise', perMinute: 100_000_000, perDay: 1_000_000_000 }],
    logLevel: 'silent',
  });
  const { server } = await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (server.address() as AddressInfo).port;
  const auth = `Authorization: Bearer ${KEY}\r\nHost: 127.0.0.1\r\n`;
  const body = '{"name":"Rex","categoryId":1}';

  // In flight: a create whose body has not all arrived, so its answer is being prepared at the stop.
  const inFlight = rawConnection(port);
  inFlight.socket.write(
    `POST /v1/pets HTTP/1.1\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
  );
  // Kept alive and idle: one answer received, the connection left open.
  const idle = rawConnection(port);
  idle.socket.write(`GET /healthz HTTP/1.1\r\n${auth}\r\n`);
  await until('the first answer on the idle connection', () => /\r\n\r\n\{"status":"ok"\}/.test(idle.received()));
  assert.match(idle.received(), /connection: keep-alive/i);
  // Half a request: its head has begun to arrive.
  const arriving = rawConnection(port);
  arriving.socket.write('GET /v1/pets HTTP/1.1\r\n');
  await until('the in-flight request to be counted', () => app.inFlight() === 1);

  const closing = app.close();
  // The port stays open while the create is in flight: the idle connection's next request gets a 503.
  idle.socket.write(`GET /v1/pets HTTP/1.1\r\n${auth}\r\n`);
  await idle.closed;
  assert.match(idle.received(), /HTTP\/1\.1 503 Service Unavailable\r\n[^]*connection: close/i);
  inFlight.socket.write(body.slice(5));
  await inFlight.closed;
  assert.match(inFlight.received(), /^HTTP\/1\.1 201 Created\r\n/, 'the create is answered as it would have been');
  assert.match(inFlight.received(), /\r\nconnection: close\r\n/i, 'and told the connection closes');
  // The port has closed; the half-sent request still gets its answer once the rest of it arrives.
  await until('the port to close', () => !server.listening);
  // Longer than a connection told nothing may stay idle: had it been taken for idle, it would be closed.
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(arriving.socket.readyState, 'open', 'a connection receiving a request is not closed as idle');
  arriving.socket.write(auth + '\r\n');
  await arriving.closed;
  assert.match(arriving.received(), /^HTTP\/1\.1 503 Service Unavailable\r\n[^]*connection: close/i);
  await closing;
});
