// At least once, across a crash (docs/events.md "Delivery"), with real processes and a real receiver: the
// service is SIGKILLed while clients create pets and its receiver fails every delivery; started again
// with the receiver answering 200, it delivers the event of every create it acknowledged, each signed
// and each a pet that exists, and no event of a pet that was never created.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { request } from 'undici';
import { type Child, runCli, waitForListening } from '../helpers/child.js';
import { startReceiver } from '../webhooks/receiver.js';

const KEY = 'crash-key-0123456789abcdef';
const AUTH = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
/**
 * Retries soon at first, then every 2 s for three minutes: no delivery runs out of retries before the
 * kill however slowly the creates come, and after the restart each is attempted again within 2 s.
 */
const RETRY_WAITS_MS = [...Array<number>(10).fill(50), ...Array<number>(90).fill(2000)].join(',');
/** Creates acknowledged before the kill. */
const CREATES = 150;

function serve(dataDir: string): Child {
  return runCli(
    [
      'serve',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--webhook-allow-private',
      '--webhook-retry-ms',
      RETRY_WAITS_MS,
      '--log-level',
      'warn',
    ],
    { ANIMAL_STORE_KEYS: `${KEY}:enterprise:10000000:100000000` },
  );
}

async function post(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await request(url, { method: 'POST', headers: AUTH, body: JSON.stringify(body) });
  return { status: response.statusCode, json: await response.body.json() };
}

test(
  'after a SIGKILL with a failing receiver, a restart delivers the event of every acknowledged create, and none invented',
  { timeout: 120_000 },
  async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-delivery-crash-'));
    let failing = true;
    const receiver = await startReceiver((_req, res) => res.writeHead(failing ? 503 : 200).end());
    let child: Child | undefined;
    try {
      child = serve(dataDir);
      const api = await waitForListening(child);
      const made = await post(`${api}/webhooks`, { url: `${receiver.url}/hook`, events: ['pet.created'] });
      assert.equal(made.status, 201);
      const secret = (made.json as { secret: string }).secret;
      // Four clients create pets until enough are acknowledged; the service is killed while they go on.
      const acknowledged = new Set<number>();
      let stop = false;
      const client = async (): Promise<void> => {
        while (!stop) {
          try {
            const created = await post(`${api}/pets`, { name: 'Crash', categoryId: 1 });
            if (created.status === 201) acknowledged.add((created.json as { id: number }).id);
          } catch {
            return; // the service is gone
          }
        }
      };
      const clients = [client(), client(), client(), client()];
      while (acknowledged.size < CREATES) await new Promise((resolve) => setTimeout(resolve, 10));
      child.process.kill('SIGKILL');
      stop = true;
      await child.exited;
      await Promise.all(clients);
      assert.ok(receiver.requests.length > 0, 'the failing receiver was tried before the kill');

      failing = false;
      const before = receiver.requests.length;
      child = serve(dataDir);
      const again = await waitForListening(child);
      const delivered = (): Set<number> => {
        const ids = new Set<number>();
        for (const received of receiver.requests.slice(before)) {
          const event = new Webhook(secret).verify(received.body, {
            'webhook-id': String(received.headers['webhook-id']),
            'webhook-timestamp': String(received.headers['webhook-timestamp']),
            'webhook-signature': String(received.headers['webhook-signature']),
          }) as { type: string; data: { id: number } };
          assert.equal(event.type, 'pet.created');
          ids.add(event.data.id);
        }
        return ids;
      };
      const deadline = Date.now() + 60_000;
      while ([...acknowledged].some((id) => !delivered().has(id))) {
        assert.ok(Date.now() < deadline, 'every acknowledged create was delivered within a minute');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // Delivered events beyond the acknowledged ones are creates whose answer the kill cut off: each
      // is a pet that exists, as its event says.
      for (const id of delivered()) {
        if (acknowledged.has(id)) continue;
        const read = await request(`${again}/pets/${id}`, { headers: AUTH });
        assert.equal(read.statusCode, 200, `pet ${id} of a delivered event exists`);
        await read.body.dump();
      }
    } finally {
      child?.process.kill('SIGKILL');
      await child?.exited;
      await receiver.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
);
