// The service's Prometheus metrics, with prom-client: what the dispatcher observes per request
// (operations, statuses, latency, refusals, shed requests), what the store holds (animals by status,
// orders by state, read when scraped), the embedded store's journal (records, bytes, fsync latency
// and group size, compactions, the time opening took), and the process metrics Node services
// publish (event-loop lag, heap, RSS, GC, handles). Each service has a registry of its own, so two
// services in one process do not mix their numbers.
//
// The request path pays a few additions per request: the two metrics every request moves are kept by
// hand (request-tally.ts), the rare ones (refusals, bans, shed requests) by prom-client.
//
// Under `--workers` the primary sums what every worker counts (cluster-metrics.ts): counters and
// histograms add up; each gauge says in its `aggregator` how its workers' values combine, since a
// gauge read from the shared store is the same number in every worker and must not be multiplied.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestObserver } from '../http/request-observer.js';
import type { JournalWatch } from '../journal/journal-watch.js';
import { ORDER_STATUSES } from '../orders/schemas.js';
import { PET_STATUSES } from '../pets/schemas.js';
import type { Store } from '../store/store.js';
import { type MetricJson, RequestTally } from './request-tally.js';

/** fsync buckets in seconds: a fast SSD's fraction of a millisecond to a struggling disk's second. */
const FSYNC_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
/** Records made durable by one fsync: 1 when writes come one at a time, more when they are grouped. */
const GROUP_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/**
 * prom-client's own process metrics carry the aggregator it chose for them (amounts of CPU, memory,
 * handles summed; event-loop lag averaged, its minimum and maximum kept; the start time left out, as
 * each worker has its own; the Node version taken once). The one it sums wrongly is a per-process
 * limit, not an amount: the lowest is the one a worker meets first.
 */
const PROCESS_AGGREGATORS: Readonly<Record<string, string>> = { process_max_fds: 'min' };

/** The metrics of one service. */
export interface ServiceMetrics {
  registry: Registry;
  observer: RequestObserver;
  /** A webhook delivery attempt ended so (docs/events.md). */
  webhookAttempted(outcome: 'delivered' | 'retrying' | 'failed' | 'disabled'): void;
  /** A webhook was disabled by its receiver's answers (410, or failing too long). */
  webhookDisabled(): void;
  /** The whole scrape: prom-client's registry and the hand-kept request metrics. */
  text(): Promise<string>;
  /** The same as prom-client's JSON, each metric with its aggregator: what a worker sends its primary. */
  json(): Promise<MetricJson[]>;
  contentType: string;
}

/**
 * Builds the registry of a service on `store`; `inFlight` counts API requests being answered now.
 * `journal` is the embedded store's journal when it has one (the app knows; the Store seam does not).
 */
export function createServiceMetrics(
  store: Store,
  inFlight: () => number,
  journal: JournalWatch | undefined,
): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const refusals = new Counter({
    name: 'animal_store_rate_limit_refusals_total',
    help: 'Requests refused by the rate limits (429), by code: rate_limited or temporarily_banned.',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const bans = new Counter({
    name: 'animal_store_rate_limit_bans_total',
    help: 'Temporary bans started (a key refused too often within the refusal window).',
    registers: [registry],
  });
  const shed = new Counter({
    name: 'animal_store_requests_shed_total',
    help: 'Requests answered 503 because the service was at capacity (--max-in-flight).',
    registers: [registry],
  });
  new Gauge({
    name: 'animal_store_requests_in_flight',
    help: 'API requests being answered now.',
    // Each worker answers requests of its own: the service's are the sum.
    aggregator: 'sum',
    registers: [registry],
    collect() {
      this.set(inFlight());
    },
  });
  new Gauge({
    name: 'animal_store_pets',
    help: 'Animals in the store, by status (read from the store when scraped).',
    labelNames: ['status'] as const,
    // Every worker reads the one shared store: the same count, read a moment apart, not a part of it.
    // The largest reading is kept (first would be whichever worker answered first).
    aggregator: 'max',
    registers: [registry],
    async collect() {
      for (const status of PET_STATUSES)
        this.set({ status }, (await store.pagePets({ status, afterId: 0, limit: 0 })).total);
    },
  });
  new Gauge({
    name: 'animal_store_orders',
    help: 'Orders in the store, by state (read from the store when scraped).',
    labelNames: ['status'] as const,
    aggregator: 'max', // read from the shared store, as animal_store_pets
    registers: [registry],
    async collect() {
      for (const status of ORDER_STATUSES)
        this.set({ status }, (await store.pageOrders({ status, afterId: 0, limit: 0 })).total);
    },
  });

  const attempts = new Counter({
    name: 'animal_store_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome: delivered, retrying, failed (no retry left) or disabled.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const disabledByReceivers = new Counter({
    name: 'animal_store_webhooks_disabled_total',
    help: "Webhooks disabled by their receivers' answers (410, or failing for too long) since the start.",
    registers: [registry],
  });
  // One read of the store's delivery figures per scrape, shared by the gauges below.
  let deliveryStats: ReturnType<Store['webhooks']['stats']> | undefined;
  const readStats = async (): Promise<Awaited<ReturnType<Store['webhooks']['stats']>>> => {
    deliveryStats ??= Promise.resolve(store.webhooks.stats()).finally(() => {
      deliveryStats = undefined;
    });
    return deliveryStats;
  };
  new Gauge({
    name: 'animal_store_events_retained',
    help: 'Events kept and listed at /v1/events (the retention period), read from the store when scraped.',
    aggregator: 'max', // read from the shared store, as animal_store_pets
    registers: [registry],
    async collect() {
      this.set((await readStats()).events);
    },
  });
  new Gauge({
    name: 'animal_store_webhook_deliveries_pending',
    help: 'Deliveries of events to webhooks not yet done (due now or waiting for a retry).',
    // Pending deliveries are rows of the shared store that any worker may claim, counted whole by each
    // worker: summing would count each one once per worker.
    aggregator: 'max',
    registers: [registry],
    async collect() {
      this.set((await readStats()).pending);
    },
  });
  new Gauge({
    name: 'animal_store_webhook_oldest_pending_seconds',
    help: 'Age of the oldest pending delivery, in seconds (0 when none is pending).',
    aggregator: 'max', // an age: the oldest is what the metric names
    registers: [registry],
    async collect() {
      const oldest = (await readStats()).oldestPendingMs;
      this.set(oldest === null ? 0 : Math.max(0, (Date.now() - oldest) / 1000));
    },
  });
  new Gauge({
    name: 'animal_store_webhooks_disabled',
    help: 'Webhooks disabled now, by their owners or by their receivers.',
    aggregator: 'max', // read from the shared store, as animal_store_pets
    registers: [registry],
    async collect() {
      this.set((await readStats()).disabledSubscriptions);
    },
  });

  if (journal !== undefined) {
    new Gauge({
      name: 'animal_store_journal_records',
      help: 'Intact records in the journal (the embedded store).',
      // One process owns a journal, so workers never share one; were they to, it would be one journal.
      aggregator: 'max',
      registers: [registry],
      collect() {
        this.set(journal.stats().records);
      },
    });
    new Gauge({
      name: 'animal_store_journal_bytes',
      help: 'Size of the journal in bytes (the embedded store).',
      aggregator: 'max', // one journal, as animal_store_journal_records
      registers: [registry],
      collect() {
        this.set(journal.stats().bytes);
      },
    });
    const opened = new Gauge({
      name: 'animal_store_store_open_seconds',
      help: 'Time opening the store took at start: replaying the journal.',
      aggregator: 'max', // the slowest start is the one to look at
      registers: [registry],
    });
    opened.set(journal.openSeconds);
    const fsyncs = new Histogram({
      name: 'animal_store_journal_fsync_duration_seconds',
      help: 'Time each fsync of the journal took (under durability always, each write, which carries its sync).',
      buckets: FSYNC_BUCKETS,
      registers: [registry],
    });
    const groups = new Histogram({
      name: 'animal_store_journal_fsync_group_records',
      help: 'Records made durable by each fsync (group commit).',
      buckets: GROUP_BUCKETS,
      registers: [registry],
    });
    const compactions = new Counter({
      name: 'animal_store_journal_compactions_total',
      help: 'Compactions of the journal completed.',
      registers: [registry],
    });
    journal.listen({
      synced: (seconds, records) => {
        fsyncs.observe(seconds);
        if (records > 0) groups.observe(records);
      },
      compacted: () => compactions.inc(),
    });
  }

  const refusalChildren = new Map<string, Counter.Internal>();
  const tally = new RequestTally();
  const observer: RequestObserver = {
    answered(operation, status, seconds) {
      tally.answered(operation, status, seconds);
    },
    refused(code, banStarted) {
      let counted = refusalChildren.get(code);
      if (counted === undefined) {
        counted = refusals.labels(code);
        refusalChildren.set(code, counted);
      }
      counted.inc();
      if (banStarted) bans.inc();
    },
    shed() {
      shed.inc();
    },
  };
  return {
    registry,
    observer,
    webhookAttempted: (outcome) => attempts.labels(outcome).inc(),
    webhookDisabled: () => disabledByReceivers.inc(),
    text: async () => `${await registry.metrics()}\n${tally.exposition()}`,
    json: async () => {
      const metrics = (await registry.getMetricsAsJSON()) as unknown as MetricJson[];
      for (const metric of metrics) metric.aggregator = PROCESS_AGGREGATORS[metric.name] ?? metric.aggregator;
      return [...metrics, ...tally.json()];
    },
    contentType: registry.contentType,
  };
}
