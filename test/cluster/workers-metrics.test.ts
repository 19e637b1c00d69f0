// One /metrics for `--workers 2`: the primary answers each scrape with both workers' metrics summed.
// Requests on fresh connections are dealt to both workers (each answer's request id starts with its
// process's own prefix, which tells them apart), and one scrape counts every one of them; a gauge read
// from the shared store is not doubled. A worker killed and replaced takes nothing away from the
// counters: what it had counted by the last scrape stays in the sums.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { Agent, request } from 'undici';
import { runCli, waitForMatch } from '../helpers/child.js';
import { freePort } from '../helpers/ports.js';
import { createTestDatabase, postgresSkipReason } from '../helpers/postgres.js';
import { freshPrefix, redisSkipReason, TEST_REDIS_URL } from '../helpers/redis.js';

const KEY = 'workers-metrics-key-0123456789';
const skip = (await postgresSkipReason()) ?? (await redisSkipReason());
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
before(async () => {
  if (skip === undefined) database = await createTestDatabase();
});
after(async () => {
  await database?.drop();
});

/** The value of the sample of `name` whose labels include `labels`, from the text of a scrape. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const family = parsePrometheusTextFormat(text).find((each) => each.name === name);
  const found = family?.metrics.find((metric) =>
    Object.entries(labels).every(([label, wanted]) => metric.labels?.[label] === wanted),
  );
  return found === undefined ? undefined : Number(found.value ?? found.count);
}

test(
  '--workers 2: one scrape of the primary counts the requests both workers served',
  { skip, timeout: 120_000 },
  async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const child = runCli(
      [
        'serve',
        '--workers',
        '2',
        '--port',
        String(port),
        '--metrics-port',
        String(metricsPort),
        '--database-url',
        (database as { url: string }).url,
        '--redis-url',
        TEST_REDIS_URL,
        '--redis-prefix',
        freshPrefix(),
      ],
      { ANIMAL_STORE_KEYS: `${KEY}:enterprise:100000000:1000000000` },
    );
    const output = (): string => child.stdout() + child.stderr();
    // A connection of its own for every request (no keep-alive), so the primary deals them to both workers.
    const fresh = new Agent({ pipelining: 0 });
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const scrape = async (): Promise<string> => {
      const response = await request(metricsUrl, { dispatcher: fresh });
      const text = await response.body.text();
      assert.equal(response.statusCode, 200, text);
      assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      return text;
    };
    /** Sends `count` listPets on fresh connections; resolves with the request-id prefixes that answered. */
    const list = async (count: number): Promise<Set<string>> => {
      const prefixes = new Set<string>();
      for (let i = 0; i < count; i++) {
        const response = await request(`${apiUrl}/pets?limit=1`, { headers, dispatcher: fresh });
        await response.body.dump();
        assert.equal(response.statusCode, 200);
        prefixes.add(String(response.headers['x-request-id']).split('-')[0] as string);
      }
      return prefixes;
    };
    let apiUrl = '';
    try {
      [, apiUrl = ''] = await waitForMatch(child.stdout, /animal-store listening on (http:\/\/\S+)/);
      const [, pids] = await waitForMatch(output, /2 workers listen on one port: pids (\d+, \d+)/);
      assert.match(output(), new RegExp(`metrics on http://127\\.0\\.0\\.1:${metricsPort}/metrics`));

      // The same route as a single process's metrics port: GET and HEAD, 405 otherwise, 404 elsewhere.
      const head = await request(metricsUrl, { method: 'HEAD', dispatcher: fresh });
      assert.equal(head.statusCode, 200);
      const post = await request(metricsUrl, { method: 'POST', dispatcher: fresh });
      await post.body.dump();
      assert.equal(post.statusCode, 405);
      assert.equal(post.headers.allow, 'GET, HEAD');
      const elsewhere = await request(metricsUrl.replace('/metrics', '/'), { dispatcher: fresh });
      await elsewhere.body.dump();
      assert.equal(elsewhere.statusCode, 404);

      for (let i = 0; i < 3; i++) {
        const created = await request(`${apiUrl}/pets`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: `m${i}`, categoryId: 1 }),
          dispatcher: fresh,
        });
        await created.body.dump();
        assert.equal(created.statusCode, 201);
      }
      const sent = 40;
      const prefixes = await list(sent);
      assert.equal(prefixes.size, 2, `both workers answered (request-id prefixes ${[...prefixes].join(', ')})`);

      const text = await scrape();
      const requests = { operation: 'listPets', status: '200' };
      assert.equal(sample(text, 'animal_store_http_requests_total', requests), sent, 'every request, once');
      assert.equal(sample(text, 'animal_store_http_requests_total', { operation: 'createPet', status: '201' }), 3);
      const latencyCount = new RegExp(
        '^animal_store_http_request_duration_seconds_count\\{operation="listPets"\\} (\\S+)$',
        'm',
      ).exec(text)?.[1];
      assert.equal(Number(latencyCount), sent, 'the latency histogram is summed too');
      // Read from the one shared store by each worker: the number in the store, not twice it.
      assert.equal(sample(text, 'animal_store_pets', { status: 'available' }), 3);
      assert.equal(sample(text, 'animal_store_requests_in_flight', {}), 0);
      assert.match(text, /^process_resident_memory_bytes \d+/m, 'the process metrics are there, summed');
      assert.doesNotMatch(text, /^process_start_time_seconds/m, "each worker's start time is left out");

      // A worker killed and replaced: its counts stay in the sums, and the replacement's add to them.
      const victim = Number((pids as string).split(', ')[0]);
      process.kill(victim, 'SIGKILL');
      await waitForMatch(output, new RegExp(`worker pid \\d+ replaces pid ${victim} and listens`));
      const more = 10;
      await list(more);
      const after = await scrape();
      assert.equal(sample(after, 'animal_store_http_requests_total', requests), sent + more);

      child.process.kill('SIGTERM');
      assert.equal(await child.exited, 0, child.stderr());
    } finally {
      child.process.kill('SIGKILL');
      await fresh.close();
    }
  },
);
