// Events and webhooks through two real service processes on one PostgreSQL database and one Redis
// (docs/events.md): a subscription made on one instance is served by the other, an event recorded on
// either is delivered (each due delivery claimed by one instance at a time), listed on both, and a
// disable on one instance stops every instance's attempts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Agent } from 'undici';
import { sendApi } from '../helpers/api-request.js';
import { type Child, runCli, waitForListening } from '../helpers/child.js';
import { createTestDatabase, postgresSkipReason } from '../helpers/postgres.js';
import { freshPrefix, redisSkipReason, TEST_REDIS_URL } from '../helpers/redis.js';
import { startReceiver } from './receiver.js';

const KEY = 'webhook-instances-key-0123456789';
const skip = (await postgresSkipReason()) ?? (await redisSkipReason());
const agent = new Agent({ keepAliveTimeout: 1000 });

let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
const children: Child[] = [];
let apis: string[] = [];

before(async () => {
  if (skip !== undefined) return;
  database = await createTestDatabase();
  const prefix = freshPrefix();
  for (let index = 0; index < 2; index++) {
    const child = runCli(
      [
        'serve',
        '--port',
        '0',
        '--database-url',
        database.url,
        '--redis-url',
        TEST_REDIS_URL,
        '--redis-prefix',
        prefix,
        '--webhook-allow-private',
        '--webhook-retry-ms',
        '100,100,100',
        '--log-level',
        'warn',
      ],
      { ANIMAL_STORE_KEYS: `${KEY}:enterprise:100000000:1000000000` },
    );
    children.push(child);
  }
  apis = await Promise.all(children.map((child) => waitForListening(child)));
});
after(async () => {
  for (const child of children) child.process.kill('SIGKILL');
  await Promise.all(children.map((child) => child.exited));
  await agent.close();
  await database?.drop();
});

async function send(api: string, method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) {
  const { status, text } = await sendApi(agent, api, KEY, method, path, body);
  return { status, json: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
}

async function eventually(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test(
  'a subscription made on one instance gets the events recorded on both, and both list them',
  { skip, timeout: 120_000 },
  async () => {
    const [a, b] = apis as [string, string];
    const receiver = await startReceiver((_req, res) => res.writeHead(200).end());
    try {
      const made = await send(a, 'POST', '/webhooks', { url: receiver.url, events: ['pet.created'] });
      assert.equal(made.status, 201);
      const id = made.json?.id as string;
      assert.equal((await send(b, 'GET', `/webhooks/${id}`)).status, 200);
      const created: number[] = [];
      for (let index = 0; index < 10; index++) {
        const pet = await send(index % 2 === 0 ? a : b, 'POST', '/pets', { name: `Both ${index}`, categoryId: 1 });
        created.push(pet.json?.id as number);
      }
      const delivered = (): Set<number> =>
        new Set(receiver.requests.map((request) => (JSON.parse(request.body) as { data: { id: number } }).data.id));
      await eventually(() => created.every((petId) => delivered().has(petId)), 'every event delivered');
      // Each event went out once: the two instances never both claimed one delivery.
      const ids = receiver.requests.map((request) => String(request.headers['webhook-id']));
      assert.equal(new Set(ids).size, ids.length, 'no event delivered twice while both instances live');
      // An event is listed once every transaction older than its own has ended (docs/events.md), and
      // other tests share this PostgreSQL server: the listing may lag a delivery by a moment.
      for (const api of [a, b]) {
        const listedPets = async (): Promise<number[]> => {
          const listed = await send(api, 'GET', '/events?type=pet.created&limit=100');
          return (listed.json as unknown as Array<{ data: { id: number } }>).map((event) => event.data.id);
        };
        await eventually(async () => {
          const pets = await listedPets();
          return created.every((petId) => pets.includes(petId));
        }, `${api} to list the events of every pet`);
      }
      // An attempt is written once its answer is in, a moment after the receiver saw the request.
      await eventually(async () => {
        const attempts = await send(b, 'GET', `/webhooks/${id}/attempts?limit=100`);
        return (attempts.json as unknown as unknown[]).length === created.length;
      }, 'an attempt listed for every event');
    } finally {
      await receiver.close();
    }
  },
);

test(
  'a disable answered by one instance stops the attempts of every instance',
  { skip, timeout: 120_000 },
  async () => {
    const [a, b] = apis as [string, string];
    const receiver = await startReceiver((_req, res) => res.writeHead(500).end());
    try {
      const made = await send(a, 'POST', '/webhooks', { url: receiver.url, events: ['pet.created'] });
      const id = made.json?.id as string;
      await send(b, 'POST', '/pets', { name: 'Failing', categoryId: 1 });
      await eventually(() => receiver.requests.length >= 2, 'retries from the instances');
      assert.equal((await send(b, 'PATCH', `/webhooks/${id}`, { status: 'disabled' })).status, 200);
      // An attempt already started may reach the receiver after the answer (later still on a busy
      // machine); none starts later. So the count is taken once the receiver has been quiet a while.
      let seen = receiver.requests.length;
      let quietSinceMs = Date.now();
      await eventually(() => {
        if (receiver.requests.length !== seen) [seen, quietSinceMs] = [receiver.requests.length, Date.now()];
        return Date.now() - quietSinceMs >= 500;
      }, 'the receiver falling quiet after the disable');
      await send(a, 'POST', '/pets', { name: 'After', categoryId: 1 });
      await new Promise((resolve) => setTimeout(resolve, 600));
      assert.equal(receiver.requests.length, seen);
    } finally {
      await receiver.close();
    }
  },
);
