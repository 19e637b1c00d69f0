// With real processes: orders and Idempotency-Key answers under SIGKILL, with the log compacted
// often. After each restart no order is half-applied (its pet's status always matches it), every
// acknowledged change is there, and a key acknowledged before the crash replays its original answer.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Agent, request } from 'undici';
import { runCli, waitForListening } from '../helpers/child.js';
import type { Pet } from '../helpers/pet-creates.js';

const KEY = 'crash-orders-key-0123456789';
const ENV = { ANIMAL_STORE_KEYS: `${KEY}:enterprise:100000000:1000000000` };
const WORKERS = 48;
const CYCLES = 3;

interface Order {
  id: number;
  petId: number;
  status: string;
}
interface Acknowledged {
  path: string;
  key: string;
  body: string;
  answer: string;
}

async function send(
  apiUrl: string,
  agent: Agent,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: string,
  idempotencyKey?: string,
): Promise<{ status: number; text: string; replayed: boolean }> {
  const headers: Record<string, string> = { authorization: `Bearer ${KEY}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  const response = await request(`${apiUrl}${path}`, { method, headers, body, dispatcher: agent });
  return {
    status: response.statusCode,
    text: await response.body.text(),
    replayed: response.headers['idempotent-replayed'] === 'true',
  };
}

async function listAll<T>(apiUrl: string, agent: Agent, path: string): Promise<T[]> {
  const items: T[] = [];
  let next: string | undefined = `${path}?limit=100`;
  while (next !== undefined) {
    const response = await request(`${apiUrl}${next}`, {
      headers: { authorization: `Bearer ${KEY}` },
      dispatcher: agent,
    });
    items.push(...((await response.body.json()) as T[]));
    const link = response.headers.link as string | undefined;
    next = link === undefined ? undefined : /^<\/v1([^>]+)>/.exec(link)?.[1];
  }
  return items;
}

/** No order is half-applied: each pet's status is what its orders say it must be. */
function assertConsistent(pets: Pet[], orders: Order[], context: string): void {
  const byPet = new Map<number, Order[]>();
  for (const order of orders) byPet.set(order.petId, [...(byPet.get(order.petId) ?? []), order]);
  for (const pet of pets) {
    const own = byPet.get(pet.id) ?? [];
    const placed = own.filter((order) => order.status === 'placed').length;
    const delivered = own.filter((order) => order.status === 'delivered').length;
    const expected = delivered > 0 ? 'sold' : placed > 0 ? 'pending' : 'available';
    assert.ok(
      placed + delivered <= 1,
      `${context}: pet ${pet.id} has ${placed} placed and ${delivered} delivered orders`,
    );
    assert.equal(pet.status, expected, `${context}: pet ${pet.id} is ${pet.status} but its orders say ${expected}`);
  }
}

test(
  'orders and idempotent replays survive SIGKILL during writes and compaction, never half-applied',
  {
    timeout: 150_000,
  },
  async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-crash-orders-'));
    const pets = new Map<number, Pet>();
    const replays: Acknowledged[] = [];
    try {
      for (let cycle = 0; cycle <= CYCLES; cycle++) {
        const child = runCli(['serve', '--port', '0', '--data-dir', dataDir, '--compact-min-records', '100'], ENV);
        const apiUrl = await waitForListening(child);
        const agent = new Agent({ connections: WORKERS });
        const presentPets = await listAll<Pet>(apiUrl, agent, '/pets');
        const presentOrders = await listAll<Order>(apiUrl, agent, '/store/orders');
        assertConsistent(presentPets, presentOrders, `after restart ${cycle}`);
        const byId = new Map(presentPets.map((pet) => [pet.id, pet]));
        for (const [id, pet] of pets) {
          assert.equal(byId.get(id)?.name, pet.name, `acknowledged pet ${id} survived restart ${cycle}`);
        }
        for (const acknowledged of replays) {
          const again = await send(apiUrl, agent, 'POST', acknowledged.path, acknowledged.body, acknowledged.key);
          assert.equal(
            again.text,
            acknowledged.answer,
            `key ${acknowledged.key} replays its original answer after restart ${cycle}`,
          );
          assert.ok(again.replayed);
        }
        if (cycle === CYCLES) {
          child.process.kill('SIGTERM');
          assert.equal(await child.exited, 0);
          await agent.close();
          break;
        }

        let stop = false;
        let serial = 0;
        const worker = async (): Promise<void> => {
          while (!stop) {
            const n = `${cycle}-${serial++}`;
            try {
              const petBody = JSON.stringify({ name: `pet ${n}`, categoryId: 1 });
              const created = await send(apiUrl, agent, 'POST', '/pets', petBody, `pet-${n}`);
              if (created.status !== 201) continue;
              const pet = JSON.parse(created.text) as Pet;
              pets.set(pet.id, pet);
              if (replays.length < 40)
                replays.push({ path: '/pets', key: `pet-${n}`, body: petBody, answer: created.text });
              const orderBody = JSON.stringify({ petId: pet.id });
              const placed = await send(apiUrl, agent, 'POST', '/store/orders', orderBody, `order-${n}`);
              if (placed.status !== 201) continue;
              if (replays.length < 80)
                replays.push({ path: '/store/orders', key: `order-${n}`, body: orderBody, answer: placed.text });
              const order = JSON.parse(placed.text) as Order;
              if (serial % 3 === 0) {
                // Churn: superseded records, so compaction runs (and gets killed) while writes go on.
                let current = order;
                for (let round = 0; round < 4; round++) {
                  await send(apiUrl, agent, 'DELETE', `/store/orders/${current.id}`);
                  const again = await send(apiUrl, agent, 'POST', '/store/orders', orderBody);
                  if (again.status !== 201) break;
                  current = JSON.parse(again.text) as Order;
                }
              } else if (serial % 3 === 1)
                await send(apiUrl, agent, 'PATCH', `/store/orders/${order.id}`, '{"status":"delivered"}');
            } catch {
              return; // The process is gone.
            }
          }
        };
        const workers = Array.from({ length: WORKERS }, () => worker());
        const before = pets.size;
        while (pets.size - before < 300 + cycle * 100) await new Promise((resolve) => setTimeout(resolve, 10));
        child.process.kill('SIGKILL');
        await child.exited;
        stop = true;
        await Promise.all(workers);
        await agent.destroy();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  },
);
