// GET /metrics on its own port, read by a real Prometheus text-format parser: counters move by exactly
// the requests sent, latency is a histogram per operation, refusals and bans are counted, the store's
// animals and orders and the journal's work are there, and nothing of it is on the API's port.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import parsePrometheusTextFormat, { type MetricFamily as Family } from 'parse-prometheus-text-format';
import { request } from 'undici';
import { call, startServer, TEST_KEY, type TestServer } from '../helpers/server.js';

const FREE_KEY = 'metrics-free-key-0123456789';
let server: TestServer;
let metricsUrl: string;
before(async () => {
  server = await startServer({
    onDisk: true,
    durability: 'always',
    metricsPort: 0,
    keys: [
      { key: TEST_KEY, plan: 'enterprise', perMinute: 1_000_000, perDay: 100_000_000 },
      { key: FREE_KEY, plan: 'free' },
    ],
    limits: { refusalsBeforeBan: 2 },
  });
  const listening = await server.app.listen({ port: 0, host: '127.0.0.1' });
  metricsUrl = listening.metricsUrl as string;
});
after(() => server.close());

async function scrape(): Promise<Map<string, Family>> {
  const response = await request(metricsUrl);
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  const families = parsePrometheusTextFormat(await response.body.text());
  return new Map(families.map((family) => [family.name, family]));
}

function value(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const family = families.get(name);
  if (family === undefined) return 0;
  const sample = family.metrics.find((metric) =>
    Object.entries(labels).every(([key, wanted]) => metric.labels?.[key] === wanted),
  );
  return Number(sample?.value ?? sample?.count ?? 0);
}

test('metrics are on their own port, bound to loopback, and nowhere on the API port', async () => {
  assert.match(metricsUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  assert.notEqual(new URL(metricsUrl).port, new URL(server.url).port);
  assert.equal((await call(server, 'GET', '/metrics')).status, 404);
  const head = await request(metricsUrl, { method: 'HEAD' });
  assert.equal(head.statusCode, 200);
  const post = await request(metricsUrl, { method: 'POST' });
  await post.body.dump();
  assert.equal(post.statusCode, 405);
  assert.equal(post.headers.allow, 'GET, HEAD');
  const elsewhere = await request(metricsUrl.replace('/metrics', '/'));
  await elsewhere.body.dump();
  assert.equal(elsewhere.statusCode, 404);
});

test('request counters move by exactly the requests sent, with a latency histogram per operation', async () => {
  const before = await scrape();
  for (let i = 0; i < 7; i++)
    assert.equal((await call(server, 'POST', '/v1/pets', { json: { name: `M${i}`, categoryId: 1 } })).status, 201);
  for (let i = 0; i < 5; i++) await call(server, 'GET', '/v1/pets?limit=3');
  await call(server, 'GET', '/v1/pets/99999');
  await call(server, 'GET', '/healthz');
  const now = await scrape();
  const moved = (labels: Record<string, string>): number =>
    value(now, 'animal_store_http_requests_total', labels) - value(before, 'animal_store_http_requests_total', labels);
  assert.equal(moved({ operation: 'createPet', status: '201' }), 7);
  assert.equal(moved({ operation: 'listPets', status: '200' }), 5);
  assert.equal(moved({ operation: 'getPet', status: '404' }), 1);
  assert.equal(moved({ operation: 'healthz', status: '200' }), 1);
  assert.equal(now.get('animal_store_http_request_duration_seconds')?.type, 'HISTOGRAM');
  // The parser merges the buckets of a histogram with labels of its own, so its samples are read as lines.
  const text = await (await request(metricsUrl)).body.text();
  const sample = (line: string): number =>
    Number(new RegExp(`^${line.replace(/[{}+.]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
  const count = sample('animal_store_http_request_duration_seconds_count{operation="listPets"}');
  assert.ok(count >= 5, `${count}`);
  assert.equal(sample('animal_store_http_request_duration_seconds_bucket{le="+Inf",operation="listPets"}'), count);

  assert.ok(value(now, 'animal_store_pets', { status: 'available' }) >= 7);
  assert.equal(value(now, 'animal_store_orders', { status: 'placed' }), 0);
  assert.ok(value(now, 'animal_store_journal_records') >= 7);
  assert.ok(value(now, 'animal_store_journal_bytes') > 0);
  assert.ok(
    value(now, 'animal_store_journal_fsync_duration_seconds') >= 7,
    'one fsync per create at least, under always',
  );
  assert.ok(now.has('animal_store_journal_fsync_group_records'));
  assert.ok(now.has('animal_store_store_open_seconds'));
  for (const name of [
    'process_resident_memory_bytes',
    'nodejs_eventloop_lag_seconds',
    'nodejs_heap_size_used_bytes',
    'nodejs_gc_duration_seconds',
    'nodejs_active_handles_total',
  ])
    assert.ok(now.has(name), `${name} is published`);
});

test('rate-limit refusals and bans are counted', async () => {
  const before = await scrape();
  const statuses: number[] = [];
  for (let i = 0; i < 64; i++)
    statuses.push((await call(server, 'GET', '/v1/pets', { headers: { authorization: `Bearer ${FREE_KEY}` } })).status);
  // 60 served; the 61st and 62nd refused; the 63rd refusal (more than 2 within the window) starts a ban.
  assert.deepEqual(statuses.slice(59), [200, 429, 429, 429, 429]);
  const now = await scrape();
  const moved = (name: string, labels: Record<string, string> = {}): number =>
    value(now, name, labels) - value(before, name, labels);
  assert.equal(moved('animal_store_rate_limit_refusals_total', { code: 'rate_limited' }), 3);
  assert.equal(moved('animal_store_rate_limit_refusals_total', { code: 'temporarily_banned' }), 1);
  assert.equal(moved('animal_store_rate_limit_bans_total'), 1);
});
