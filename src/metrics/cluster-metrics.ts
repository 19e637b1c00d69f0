// One /metrics for every worker of `--workers N`: the primary owns the metrics port, and each scrape
// asks every worker for its metrics over the cluster's IPC channel, then combines them with
// prom-client's aggregation (AggregatorRegistry.aggregate): counters and histograms summed, each gauge
// as its `aggregator` says (service-metrics.ts). prom-client's own AggregatorRegistry.clusterMetrics()
// is not used: it reads each worker's global registry, where a service keeps a registry of its own and
// counts its requests by hand (request-tally.ts), and it has no answer for a worker that was replaced.
//
// Counters stay counters across replacements. A worker's counts die with it; summed, the total would go
// down, which Prometheus takes for a reset of the whole counter (rate() would count the total again).
// So the primary keeps the counters and histograms of each worker's last answer, and when a worker
// exits they join the sum for good: the total never goes down, and what a dead worker counted after
// the last scrape is lost, as a single process loses what it counted after the last scrape when it
// is killed.
//
// A worker that does not answer in time fails the scrape (503, naming it) rather than being left out:
// a sum without it would also go down for one scrape and back up at the next, two false resets. A
// worker still starting is not asked: it says when it answers scrapes, before it takes any request,
// so until then it has counted nothing.
import { AggregatorRegistry, Registry } from 'prom-client';
import { MetricsUnavailableError } from './metrics-listener.js';
import type { MetricJson } from './request-tally.js';
import type { ServiceMetrics } from './service-metrics.js';

/** How long the primary waits for every worker's answer: under Prometheus's default 10 s scrape timeout. */
export const WORKER_ANSWER_TIMEOUT_MS = 5000;

/** The primary asks a worker for its metrics. */
interface ScrapeRequest {
  animalStore: 'scrape';
  id: number;
}

/** A worker tells its primary that it answers scrapes from now on (it has counted nothing before). */
interface ScrapeReady {
  animalStore: 'scrape-ready';
}

/** A worker's answer: its metrics, or why it has none. */
interface ScrapeAnswer {
  animalStore: 'scraped';
  id: number;
  metrics?: MetricJson[];
  error?: string;
}

function isScrapeRequest(message: unknown): message is ScrapeRequest {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as { animalStore?: unknown }).animalStore === 'scrape' &&
    typeof (message as { id?: unknown }).id === 'number'
  );
}

function isScrapeAnswer(message: unknown): message is ScrapeAnswer {
  if (typeof message !== 'object' || message === null) return false;
  const answer = message as Partial<Record<keyof ScrapeAnswer, unknown>>;
  return (
    answer.animalStore === 'scraped' &&
    typeof answer.id === 'number' &&
    (Array.isArray(answer.metrics) || typeof answer.error === 'string')
  );
}

/** Where a worker's answers go: its IPC channel to the primary (`process` in a worker). */
export interface PrimaryChannel {
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
  send?: (
    message: ScrapeAnswer | ScrapeReady,
    sendHandle: undefined,
    options: undefined,
    done: (error: Error | null) => void,
  ) => boolean;
}

/** In a worker: answers the primary's scrapes with `metrics`. Returns what stops answering. */
export function answerPrimaryScrapes(metrics: Pick<ServiceMetrics, 'json'>, channel: PrimaryChannel): () => void {
  const send = (answer: ScrapeAnswer | ScrapeReady): void => {
    // A primary that is gone needs no answer; the worker is about to be stopped with it.
    channel.send?.(answer, undefined, undefined, () => {});
  };
  const listener = (message: unknown): void => {
    if (!isScrapeRequest(message)) return;
    const { id } = message;
    metrics.json().then(
      (json) => send({ animalStore: 'scraped', id, metrics: json }),
      (error: unknown) => send({ animalStore: 'scraped', id, error: (error as Error).message }),
    );
  };
  channel.on('message', listener);
  send({ animalStore: 'scrape-ready' });
  return () => channel.off('message', listener);
}

/** A worker as the primary sees it: node:cluster's Worker, or a test's stand-in. */
export interface ScrapedWorker {
  /** node:cluster's id: unique within the primary's life, where a pid may come back. */
  readonly id: number;
  readonly process: { readonly pid?: number | undefined };
  isConnected(): boolean;
  send(message: ScrapeRequest, sendHandle: undefined, options: undefined, done: (error: Error | null) => void): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'exit', listener: () => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'exit', listener: () => void): unknown;
}

export interface ClusterMetricsOptions {
  /** The workers now (node:cluster's `cluster.workers`). */
  workers: () => Iterable<ScrapedWorker>;
  timeoutMs?: number;
}

/** The counters and histograms of `metrics`: what outlives a worker. */
function countsOf(metrics: readonly MetricJson[]): MetricJson[] {
  return metrics.filter((metric) => metric.type === 'counter' || metric.type === 'histogram');
}

/** prom-client's aggregation of several processes' metrics, as JSON again. */
function aggregate(lists: readonly (readonly MetricJson[])[]): MetricJson[] {
  // aggregate() registers plain objects holding the combined values (and a get() returning them).
  return (AggregatorRegistry.aggregate(lists as object[]).getMetricsAsArray() as unknown as MetricJson[]).map(
    ({ name, help, type, aggregator, values }) => ({
      name,
      help,
      type,
      values,
      ...(aggregator !== undefined && { aggregator }),
    }),
  );
}

function pidText(worker: ScrapedWorker): string {
  return `worker pid ${worker.process.pid ?? '?'}`;
}

/** The primary's metrics: every worker's, combined at each scrape. */
export class ClusterMetrics {
  readonly contentType: string = Registry.PROMETHEUS_CONTENT_TYPE;
  readonly #workers: () => Iterable<ScrapedWorker>;
  readonly #timeoutMs: number;
  /** The counters and histograms of each live worker's last answer, by worker id. */
  readonly #last = new Map<number, MetricJson[]>();
  /** Ids of workers that exited: an answer arriving from one late is not kept. */
  readonly #gone = new Set<number>();
  /** Ids of workers that said they answer scrapes. */
  readonly #ready = new Set<number>();
  /** What exited workers counted, summed. */
  #retired: MetricJson[] = [];
  #nextId = 0;

  constructor(options: ClusterMetricsOptions) {
    this.#workers = options.workers;
    this.#timeoutMs = options.timeoutMs ?? WORKER_ANSWER_TIMEOUT_MS;
  }

  /** A message from worker `workerId` (node:cluster's `message` event): notes one that answers scrapes. */
  heard(workerId: number, message: unknown): void {
    if ((message as Partial<ScrapeReady> | null)?.animalStore === 'scrape-ready' && !this.#gone.has(workerId))
      this.#ready.add(workerId);
  }

  /** A worker exited: what it counted until its last answer stays in the sums. */
  retire(workerId: number): void {
    this.#gone.add(workerId);
    this.#ready.delete(workerId);
    const last = this.#last.get(workerId);
    if (last === undefined) return;
    this.#last.delete(workerId);
    this.#retired = aggregate([this.#retired, last]);
  }

  /** One scrape: every connected worker's metrics, combined; a MetricsUnavailableError when one does not answer. */
  async text(): Promise<string> {
    const id = this.#nextId++;
    const asked = [...this.#workers()].filter((worker) => this.#ready.has(worker.id) && worker.isConnected());
    const answers = await Promise.allSettled(asked.map((worker) => this.#ask(worker, id)));
    const failures: string[] = [];
    const lists: MetricJson[][] = [];
    const answered = new Set<number>();
    answers.forEach((answer, index) => {
      const worker = asked[index] as ScrapedWorker;
      if (answer.status === 'rejected') failures.push((answer.reason as Error).message);
      // One that exited while the others answered is already in the sums with its last counts (retire).
      else if (answer.value !== undefined && !this.#gone.has(worker.id)) {
        answered.add(worker.id);
        lists.push(answer.value);
        this.#last.set(worker.id, countsOf(answer.value));
      }
    });
    if (failures.length > 0) throw new MetricsUnavailableError(`${failures.join('; ')}; no partial sums are served`);
    // A worker that is stopping or dead but not yet retired (no longer connected, or gone mid-scrape):
    // its last counts, which retire() will keep.
    for (const [workerId, last] of this.#last) if (!answered.has(workerId)) lists.push(last);
    lists.push(this.#retired);
    return AggregatorRegistry.aggregate(lists).metrics();
  }

  /** One worker's metrics; undefined when it exits before answering. */
  #ask(worker: ScrapedWorker, id: number): Promise<MetricJson[] | undefined> {
    return new Promise((resolve, reject) => {
      const finish = (): void => {
        clearTimeout(timer);
        worker.off('message', listener);
        worker.off('exit', exited);
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`${pidText(worker)} did not answer within ${this.#timeoutMs} ms`));
      }, this.#timeoutMs);
      const listener = (message: unknown): void => {
        if (!isScrapeAnswer(message) || message.id !== id) return;
        finish();
        if (message.metrics !== undefined) resolve(message.metrics);
        else
          reject(new Error(`${pidText(worker)} could not collect its metrics: ${message.error ?? 'no reason given'}`));
      };
      const exited = (): void => {
        finish();
        resolve(undefined);
      };
      worker.on('message', listener);
      worker.on('exit', exited);
      worker.send({ animalStore: 'scrape', id }, undefined, undefined, (error) => {
        if (error === null) return;
        // The channel closed under it: the worker is stopping, and its exit follows.
        finish();
        resolve(undefined);
      });
    });
  }
}
