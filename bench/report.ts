// Results as autocannon shows them (a latency table, a per-second requests and bytes table, status
// counts, errors and timeouts) and as JSON with the same figures. Pure: builds strings and objects.
import type { LatencySummary } from './histogram.js';
import type { LoadResult } from './load.js';

/** How a run was set up, for the report's heading and JSON. */
export interface RunMeta {
  scenario: string;
  description: string;
  url: string;
  connections: number;
  pipelining: number;
  /** Threads the load was spread over. */
  workers: number;
  /** Sent over HTTP/2 (each connection a session, `pipelining` streams at once); HTTP/1.1 otherwise. */
  http2?: boolean;
  durationMs: number | undefined;
  amount: number | undefined;
  ratePerSecond: number | undefined;
  startedAt: string;
}

/** Mean, standard deviation, min and max of per-second samples. */
export interface SampleStats {
  mean: number;
  stdev: number;
  min: number;
  max: number;
}

/** The JSON of one run (`--json FILE`). */
export interface BenchReport extends RunMeta {
  elapsedMs: number;
  requests: { total: number; perSecond: number; sampled: SampleStats };
  throughput: { bodyBytes: number; bytesPerSecond: number; sampled: SampleStats };
  latency: LatencySummary;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  /** Answers with a status the scenario did not expect, or with faulty headers. */
  unexpected: number;
  problems: string[];
  /** True when every request got an answer with an expected status and no check failed. */
  ok: boolean;
  notes: Record<string, unknown>;
}

/** Stats of per-second samples; the last second is left out when it is partial and others exist. */
export function sampleStats(samples: readonly (number | undefined)[], elapsedMs: number): SampleStats {
  const full = Math.floor(elapsedMs / 1000);
  const counted = Array.from({ length: full > 0 ? full : samples.length }, (_, index) => samples[index] ?? 0);
  if (counted.length === 0) return { mean: 0, stdev: 0, min: 0, max: 0 };
  const mean = counted.reduce((sum, value) => sum + value, 0) / counted.length;
  const variance = counted.reduce((sum, value) => sum + (value - mean) ** 2, 0) / counted.length;
  return { mean, stdev: Math.sqrt(variance), min: Math.min(...counted), max: Math.max(...counted) };
}

/** The report of a run; `failures` are faults found beyond the per-answer checks (over-limit's recovery). */
export function buildReport(
  meta: RunMeta,
  result: LoadResult,
  notes: Record<string, unknown> = {},
  failures: readonly string[] = [],
): BenchReport {
  const seconds = result.elapsedMs / 1000;
  return {
    ...meta,
    elapsedMs: Math.round(result.elapsedMs),
    requests: {
      total: result.completed,
      perSecond: seconds > 0 ? result.completed / seconds : 0,
      sampled: sampleStats(result.perSecond.completed, result.elapsedMs),
    },
    throughput: {
      bodyBytes: result.bodyBytes,
      bytesPerSecond: seconds > 0 ? result.bodyBytes / seconds : 0,
      sampled: sampleStats(result.perSecond.bodyBytes, result.elapsedMs),
    },
    latency: result.latency.summary(),
    statusCodes: { ...result.statusCounts },
    errors: result.errors,
    timeouts: result.timeouts,
    unexpected: result.unexpected,
    problems: [...result.problems, ...failures],
    ok: result.unexpected === 0 && result.errors === 0 && result.timeouts === 0 && failures.length === 0,
    notes,
  };
}

/** A box-drawn table in autocannon's style; the first row is the heading. */
export function drawTable(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  const rule = (left: string, middle: string, right: string): string =>
    `${left}${widths.map((width) => '─'.repeat(width + 2)).join(middle)}${right}`;
  const line = (row: readonly string[]): string =>
    `│${row.map((cell, column) => ` ${cell.padEnd(widths[column]!)} `).join('│')}│`;
  return [
    rule('┌', '┬', '┐'),
    line(rows[0]!),
    rule('├', '┼', '┤'),
    ...rows.slice(1).map(line),
    rule('└', '┴', '┘'),
  ].join('\n');
}

/** 1234 → "1,234"; fractions to `digits` places. */
export function formatNumber(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/**
 * A ratio with the digits needed to judge it against its target: two, or more where two would round
 * it across the target (0.797 against "at least 0.80" prints 0.797, not a 0.80 that reads as met).
 */
export function formatJudgedRatio(ratio: number, target: number, judged: 'at least' | 'at most'): string {
  const meets = (value: number): boolean => (judged === 'at least' ? value >= target : value <= target);
  let digits = 2;
  while (digits < 6 && meets(Number(ratio.toFixed(digits))) !== meets(ratio)) digits += 1;
  return ratio.toFixed(digits);
}

/** Bytes in B, kB, MB or GB (powers of 1000, as autocannon prints them). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

const ms = (value: number): string =>
  `${value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0)} ms`;

/** The human-readable report: heading, latency table, per-second table, status counts and totals. */
export function formatReport(report: BenchReport): string {
  const length =
    report.amount !== undefined ? `${formatNumber(report.amount)} requests` : `${(report.durationMs ?? 0) / 1000}s`;
  const pacing =
    report.ratePerSecond === undefined
      ? ''
      : `, at a fixed ${formatNumber(report.ratePerSecond)} requests/s (latency from the intended send time)`;
  const { latency, requests, throughput } = report;
  const statuses = Object.entries(report.statusCodes)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([status, count]) => `${status} × ${formatNumber(count)}`)
    .join(', ');
  const lines = [
    `Running ${length} test @ ${report.url} — ${report.scenario}: ${report.description}`,
    (report.http2 === true
      ? `${report.connections} HTTP/2 connections with up to ${report.pipelining} streams each`
      : `${report.connections} connections${report.pipelining > 1 ? ` with ${report.pipelining} pipelining factor` : ''}`) +
      `${report.workers > 1 ? ` on ${report.workers} threads` : ''}${pacing}`,
    '',
    drawTable([
      ['Stat', '50%', '90%', '99%', '99.9%', 'Avg', 'Stdev', 'Max'],
      [
        'Latency',
        ms(latency.p50Ms),
        ms(latency.p90Ms),
        ms(latency.p99Ms),
        ms(latency.p99_9Ms),
        ms(latency.meanMs),
        ms(latency.stdevMs),
        ms(latency.maxMs),
      ],
    ]),
    '',
    drawTable([
      ['Stat', 'Avg', 'Stdev', 'Min', 'Max'],
      [
        'Req/Sec',
        formatNumber(requests.sampled.mean, 1),
        formatNumber(requests.sampled.stdev, 1),
        formatNumber(requests.sampled.min),
        formatNumber(requests.sampled.max),
      ],
      [
        'Bytes/Sec',
        formatBytes(throughput.sampled.mean),
        formatBytes(throughput.sampled.stdev),
        formatBytes(throughput.sampled.min),
        formatBytes(throughput.sampled.max),
      ],
    ]),
    '',
    'Req/Bytes counts sampled once per second.',
    `Status codes: ${statuses === '' ? 'none' : statuses}`,
    `${formatNumber(requests.total)} requests in ${(report.elapsedMs / 1000).toFixed(2)}s (${formatNumber(requests.perSecond)} req/s), ${formatBytes(throughput.bodyBytes)} read; ` +
      `${formatNumber(report.errors)} errors, ${formatNumber(report.timeouts)} timeouts, ${formatNumber(report.unexpected)} unexpected`,
  ];
  for (const [name, value] of Object.entries(report.notes))
    lines.push(`${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  if (report.problems.length > 0)
    lines.push('', 'Problems (first ones):', ...report.problems.map((problem) => `  - ${problem}`));
  lines.push('', report.ok ? 'OK: every answer had an expected status.' : 'FAILED: see the problems above.');
  return `${lines.join('\n')}\n`;
}
