// The two metrics every request moves, kept by hand: requests by operation and status, and latency
// by operation. prom-client hashes a label set on every increment and observation; measured, that
// was about 600 ns a request, most of the metrics' cost on `list`. Here a request costs two map
// lookups and a few additions on numbers, and the text is written only when Prometheus scrapes, in
// the same exposition format prom-client writes.

/** Latency bucket bounds in seconds: from half a millisecond (a cached read) to 2.5 s (a stalled disk). */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

const REQUESTS = 'animal_store_http_requests_total';
const LATENCY = 'animal_store_http_request_duration_seconds';

interface OperationTally {
  statuses: Map<number, number>;
  /** Observations per bucket, not cumulative; the last one is above every bound (+Inf). */
  buckets: Float64Array;
  sum: number;
  count: number;
}

/**
 * One metric as prom-client's `getMetricsAsJSON` gives it: what a worker sends its primary under
 * `--workers` (cluster-metrics.ts), and what prom-client's aggregation takes.
 */
export interface MetricJson {
  name: string;
  help: string;
  type: string;
  /** How the primary combines the workers' values (prom-client's aggregators); sum when absent. */
  aggregator?: string;
  values: Array<{ value: number; labels: Record<string, string | number>; metricName?: string }>;
}

const REQUESTS_HELP =
  'Requests answered, by operation (the OpenAPI operationId, or healthz, readyz, openapi, docs, preflight, malformed, not_found, unrouted) and status.';
const LATENCY_HELP = 'Time from a request arriving to its answer being handed to the socket, by operation.';

/** Requests and their latency by operation, counted in plain numbers. */
export class RequestTally {
  readonly #operations = new Map<string, OperationTally>();

  /** Counts one answered request. */
  answered(operation: string, status: number, seconds: number): void {
    let tally = this.#operations.get(operation);
    if (tally === undefined) {
      tally = { statuses: new Map(), buckets: new Float64Array(LATENCY_BUCKETS.length + 1), sum: 0, count: 0 };
      this.#operations.set(operation, tally);
    }
    tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > (LATENCY_BUCKETS[bucket] as number)) bucket++;
    tally.buckets[bucket] = (tally.buckets[bucket] as number) + 1;
    tally.sum += seconds;
    tally.count++;
  }

  /** Both metrics in the Prometheus text exposition format (version 0.0.4). */
  exposition(): string {
    const lines = [`# HELP ${REQUESTS} ${REQUESTS_HELP}`, `# TYPE ${REQUESTS} counter`];
    for (const [operation, tally] of this.#operations)
      for (const [status, count] of tally.statuses)
        lines.push(`${REQUESTS}{operation="${operation}",status="${status}"} ${count}`);
    lines.push(`# HELP ${LATENCY} ${LATENCY_HELP}`, `# TYPE ${LATENCY} histogram`);
    for (const [operation, tally] of this.#operations) {
      let cumulative = 0;
      LATENCY_BUCKETS.forEach((bound, index) => {
        cumulative += tally.buckets[index] as number;
        lines.push(`${LATENCY}_bucket{le="${bound}",operation="${operation}"} ${cumulative}`);
      });
      lines.push(`${LATENCY}_bucket{le="+Inf",operation="${operation}"} ${tally.count}`);
      lines.push(`${LATENCY}_sum{operation="${operation}"} ${tally.sum}`);
      lines.push(`${LATENCY}_count{operation="${operation}"} ${tally.count}`);
    }
    return `${lines.join('\n')}\n`;
  }

  /** Both metrics as prom-client's JSON, for a primary to sum with the other workers' (each summed: counts). */
  json(): MetricJson[] {
    const requests: MetricJson = {
      name: REQUESTS,
      help: REQUESTS_HELP,
      type: 'counter',
      aggregator: 'sum',
      values: [],
    };
    const latency: MetricJson = { name: LATENCY, help: LATENCY_HELP, type: 'histogram', aggregator: 'sum', values: [] };
    for (const [operation, tally] of this.#operations) {
      for (const [status, count] of tally.statuses)
        requests.values.push({ value: count, labels: { operation, status: String(status) } });
      let cumulative = 0;
      LATENCY_BUCKETS.forEach((bound, index) => {
        cumulative += tally.buckets[index] as number;
        latency.values.push({ value: cumulative, labels: { le: bound, operation }, metricName: `${LATENCY}_bucket` });
      });
      latency.values.push({ value: tally.count, labels: { le: '+Inf', operation }, metricName: `${LATENCY}_bucket` });
      latency.values.push({ value: tally.sum, labels: { operation }, metricName: `${LATENCY}_sum` });
      latency.values.push({ value: tally.count, labels: { operation }, metricName: `${LATENCY}_count` });
    }
    return [requests, latency];
  }
}
