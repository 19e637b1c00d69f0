// At least once when the outcome of an attempt is lost (docs/events.md "Delivery"), with real processes:
// the outcomes of attempts are written with the next change rather than on their own, so a SIGKILL
// right after a receiver answered 200 may lose that outcome. Started again, the service must then
// deliver that event again: every acknowledged create's event is either listed as delivered by an
// attempt, or received again after the restart. A lost outcome costs a redelivery, never a delivery.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type Dispatcher, request } from 'undici';
import { type Child, runCli, waitForListening } from '../helpers/child.js';
import { startReceiver } from '../webhooks/receiver.js';

const KEY = 'crash-key-0123456789abcdef';
const AUTH = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
/** The receiver's request after whose 200 the service is killed. */
const KILL_AFTER_REQUEST = 15;

function serve(dataDir: string): Child {
  return runCli(['serve', '--port', '0', '--data-dir', dataDir, '--webhook-allow-private', '--log-level', 'warn'], {
    ANIMAL_STORE_KEYS: `${KEY}:enterprise:10000000:100000000`,
  });
}

async function call(method: string, url: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await request(url, {
    method: method as 'GET' | 'POST',
    headers: AUTH,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.statusCode, json: await response.body.json() };
}

interface Attempt {
  readonly eventId: string;
  readonly status: number | null;
  readonly error: string | null;
}

/** Every attempt of the subscription, page after page: they are listed newest first, 100 at most a page. */
async function allAttempts(api: string, webhookId: string): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  let next: string | undefined = `webhooks/${webhookId}/attempts?limit=100`;
  while (next !== undefined) {
    // X-Next is a path from the host's root (base path included); the first page's is relative to the API.
    const response: Dispatcher.ResponseData = await request(new URL(next, `${api}/`).href, { headers: AUTH });
    assert.equal(response.statusCode, 200);
    attempts.push(...((await response.body.json()) as Attempt[]));
    const header = response.headers['x-next'];
    next = typeof header === 'string' ? header : undefined;
  }
  return attempts;
}

test(
  'a SIGKILL right after a receiver answered 200 costs at most a redelivery: every acknowledged event is delivered',
  { timeout: 120_000 },
  async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-outcome-crash-'));
    let child: Child | undefined;
    let killed = false;
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200).end();
      // Killed as soon as the answer is on its way: the outcome of this attempt (and of those before
      // it, if their write is still to come) is not in the log yet.
      if (!killed && receiver.requests.length >= KILL_AFTER_REQUEST) {
        killed = true;
        res.once('finish', () => child?.process.kill('SIGKILL'));
      }
    });
    try {
      child = serve(dataDir);
      const api = await waitForListening(child);
      const made = await call('POST', `${api}/webhooks`, { url: `${receiver.url}/hook`, events: ['pet.created'] });
      assert.equal(made.status, 201);
      const webhookId = (made.json as { id: string }).id;
      const acknowledged = new Set<number>();
      const client = async (): Promise<void> => {
        for (;;) {
          try {
            const created = await call('POST', `${api}/pets`, { name: 'Outcome', categoryId: 1 });
            if (created.status === 201) acknowledged.add((created.json as { id: number }).id);
          } catch {
            return; // the service is gone
          }
        }
      };
      await Promise.all([client(), client()]);
      await child.exited;
      assert.ok(killed && acknowledged.size > 0, 'killed after a delivery, with creates acknowledged');
      const before = receiver.requests.length;
      /** Pet id of each event the receiver got, by event id. */
      const petOf = new Map<string, number>();
      for (const received of receiver.requests) {
        const event = JSON.parse(received.body) as { id: string; data: { id: number } };
        petOf.set(event.id, event.data.id);
      }

      child = serve(dataDir);
      const again = await waitForListening(child);
      /** The acknowledged pets whose event is neither listed as delivered nor received since the restart. */
      const missing = async (): Promise<number[]> => {
        const receivedAgain = new Set<number>();
        for (const received of receiver.requests.slice(before)) {
          const event = JSON.parse(received.body) as { id: string; data: { id: number } };
          petOf.set(event.id, event.data.id);
          receivedAgain.add(event.data.id);
        }
        const deliveredByAttempt = new Set<number>();
        for (const attempt of await allAttempts(again, webhookId)) {
          const petId = petOf.get(attempt.eventId);
          assert.ok(petId !== undefined, `an attempt listed for ${attempt.eventId}, which the receiver got`);
          if (attempt.status === 200 && attempt.error === null) deliveredByAttempt.add(petId);
        }
        return [...acknowledged].filter((id) => !deliveredByAttempt.has(id) && !receivedAgain.has(id));
      };
      const deadline = Date.now() + 60_000;
      for (;;) {
        const left = await missing();
        if (left.length === 0) break;
        assert.ok(Date.now() < deadline, `events of pets ${left.join(', ')} neither listed delivered nor redelivered`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      child?.process.kill('SIGKILL');
      await child?.exited;
      await receiver.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
);
