// A graceful stop under keep-alive load: clients on kept-alive connections send requests in a loop
// while the service stops. Every request the service began is answered and its answer arrives; every
// answer to a request sent once the stop began says `Connection: close` (a 503 `unavailable`); and a
// request fails at the socket only if it was sent after the port had closed. The outcomes are counted
// (test diagnostics); what clients see is worded in docs/storage.md ("What clients see during a stop").
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
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
  { timeout: 60_000 },
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
