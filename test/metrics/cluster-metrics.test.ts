// The primary's sum of its workers' metrics (src/metrics/cluster-metrics.ts), with stand-in workers on
// an in-process channel: counters and histograms summed, gauges by their aggregator, a worker that
// does not answer or cannot collect fails the scrape naming it (no partial sums), and a worker that
// exits leaves its last counts in the sums, so that no counter goes down. The real workers over
// node:cluster are in test/cluster/workers-metrics.test.ts.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { answerPrimaryScrapes, ClusterMetrics, type ScrapedWorker } from '../../src/metrics/cluster-metrics.js';
import { MetricsUnavailableError } from '../../src/metrics/metrics-listener.js';
import type { MetricJson } from '../../src/metrics/request-tally.js';

/**
 * A worker of the test: answers the scrapes of `primary` with `metrics()` as a real one does (its
 * messages reach `primary.heard` as node:cluster's `message` event does), or, `starting`, does not
 * answer scrapes yet.
 */
class StandInWorker extends EventEmitter implements ScrapedWorker {
  readonly process: { pid: number };
  /** The worker's side of the channel: what the primary sends arrives here. */
  readonly inbox = new EventEmitter();
  connected = true;

  constructor(
    readonly id: number,
    primary: ClusterMetrics,
    metrics: () => Promise<MetricJson[]>,
    starting = false,
  ) {
    super();
    this.process = { pid: 1000 + id };
    if (starting) return;
    answerPrimaryScrapes(
      { json: metrics },
      {
        on: (event, listener) => this.inbox.on(event, listener),
        off: (event, listener) => this.inbox.off(event, listener),
        send: (message, _handle, _options, done) => {
          primary.heard(this.id, message);
          setImmediate(() => this.emit('message', message));
          done(null);
          return true;
        },
      },
    );
  }

  isConnected(): boolean {
    return this.connected;
  }

  send(message: object, _handle: undefined, _options: undefined, done: (error: Error | null) => void): boolean {
    setImmediate(() => {
      this.inbox.emit('message', message);
      done(null);
    });
    return true;
  }
}

/** A primary's ClusterMetrics over the stand-ins in `workers` (changed as the test goes). */
function primaryOf(workers: { list: StandInWorker[] }, timeoutMs?: number): ClusterMetrics {
  return new ClusterMetrics({ workers: () => workers.list, ...(timeoutMs !== undefined && { timeoutMs }) });
}

const counter = (value: number): MetricJson => ({
  name: 'requests_total',
  help: 'Requests.',
  type: 'counter',
  aggregator: 'sum',
  values: [{ value, labels: { operation: 'listPets' } }],
});
const gauge = (name: string, aggregator: string, value: number): MetricJson => ({
  name,
  help: name,
  type: 'gauge',
  aggregator,
  values: [{ value, labels: {} }],
});

function read(text: string): Map<string, number> {
  return new Map(parsePrometheusTextFormat(text).map((family) => [family.name, Number(family.metrics[0]?.value)]));
}

test('counters are summed, each gauge combined as its aggregator says; a worker still starting is not asked', async () => {
  const workers = { list: [] as StandInWorker[] };
  const metrics = primaryOf(workers);
  workers.list = [
    new StandInWorker(1, metrics, async () => [counter(5), gauge('in_flight', 'sum', 2), gauge('pets', 'max', 7)]),
    new StandInWorker(2, metrics, async () => [counter(3), gauge('in_flight', 'sum', 1), gauge('pets', 'max', 7)]),
    new StandInWorker(3, metrics, () => new Promise(() => {}), true),
  ];
  const values = read(await metrics.text());
  assert.equal(values.get('requests_total'), 8);
  assert.equal(values.get('in_flight'), 3);
  assert.equal(values.get('pets'), 7, 'the one store read twice, not two stores');
});

test('a worker that does not answer in time fails the scrape, naming it; one that cannot collect does too', async () => {
  const workers = { list: [] as StandInWorker[] };
  const metrics = primaryOf(workers, 50);
  const answering = new StandInWorker(1, metrics, async () => [counter(5)]);
  workers.list = [answering, new StandInWorker(2, metrics, () => new Promise(() => {}))];
  await assert.rejects(metrics.text(), (error: unknown) => {
    assert.ok(error instanceof MetricsUnavailableError);
    assert.match(error.message, /^worker pid 1002 did not answer within 50 ms; no partial sums are served$/);
    return true;
  });
  workers.list = [
    answering,
    new StandInWorker(3, metrics, () => Promise.reject(new Error('the store cannot be reached'))),
  ];
  await assert.rejects(metrics.text(), /worker pid 1003 could not collect its metrics: the store cannot be reached/);
});

test('a worker that exits leaves its counts in the sums: no counter goes down', async () => {
  let first = 5;
  let second = 3;
  const workers = { list: [] as StandInWorker[] };
  const metrics = primaryOf(workers);
  const one = new StandInWorker(1, metrics, async () => [counter(first), gauge('in_flight', 'sum', 1)]);
  const two = new StandInWorker(2, metrics, async () => [counter(second), gauge('in_flight', 'sum', 1)]);
  workers.list = [one, two];
  assert.equal(read(await metrics.text()).get('requests_total'), 8);

  // Stopping: no longer connected, not yet exited. Its last counts still count; its gauges do not.
  one.connected = false;
  first = 9; // counted after the last scrape: lost with the worker
  second = 4;
  let values = read(await metrics.text());
  assert.equal(values.get('requests_total'), 9);
  assert.equal(values.get('in_flight'), 1);

  // Exited and replaced: the replacement starts from 0 and adds to what the dead worker counted.
  metrics.retire(one.id);
  const three = new StandInWorker(3, metrics, async () => [counter(2)]);
  workers.list = [two, three];
  values = read(await metrics.text());
  assert.equal(values.get('requests_total'), 5 + 4 + 2);

  // A worker that exits while a scrape waits for the others: its last counts are kept, once.
  let gate: Promise<void> = Promise.resolve();
  const slow = new StandInWorker(4, metrics, async () => [counter(2)]);
  const gated = new StandInWorker(5, metrics, async () => {
    await gate;
    return [counter(1)];
  });
  workers.list = [three, slow, gated];
  assert.equal(read(await metrics.text()).get('requests_total'), 5 + 4 + 2 + 2 + 1);
  let open = (): void => {};
  gate = new Promise((resolve) => (open = resolve));
  const scraping = metrics.text();
  await new Promise((resolve) => setTimeout(resolve, 10)); // slow answers; gated waits at the gate
  metrics.retire(slow.id);
  open();
  assert.equal(read(await scraping).get('requests_total'), 5 + 4 + 2 + 2 + 1);
});
