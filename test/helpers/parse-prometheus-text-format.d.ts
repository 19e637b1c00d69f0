// Types of the Prometheus text-format parser the metrics test uses (the package ships none).
declare module 'parse-prometheus-text-format' {
  /** One metric family: its name, type (COUNTER, GAUGE, HISTOGRAM, …) and samples. */
  export interface MetricFamily {
    name: string;
    help: string;
    type: string;
    metrics: Array<{
      value?: string;
      labels?: Record<string, string>;
      buckets?: Record<string, string>;
      count?: string;
      sum?: string;
    }>;
  }
  export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
