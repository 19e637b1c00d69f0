// The rows bench:compare prints for --checks backends (backends.ts measures them). Pure: figures in,
// rows out, so the wording is tested without a run.
import type { BackendFigures, BackendsResult } from './backends.js';
import { BARE, BUSY_CONNECTIONS, backendTarget } from './backends.js';
import { SERVICE_PROBE } from './compare-checks.js';
import { cpuRatio, formatMicroseconds } from './cpu-report.js';
import { isGeneratorBound } from './pinning.js';
import { formatJudgedRatio, formatNumber } from './report.js';

/** One line of bench:compare's table. */
export interface ReportRow {
  check: string;
  measured: string;
  target: string;
  pass: boolean;
}

/** The names of the probes of the servers a configuration uses, as the figures carry them. */
const SERVERS = ['Redis', 'PostgreSQL'] as const;

const ratioText = (ratio: number | undefined): string => (ratio === undefined ? 'unreadable' : `${ratio.toFixed(2)}×`);
/** A ratio held to an upper target, with the digits that tell which side of it it falls (formatJudgedRatio). */
const judgedRatioText = (ratio: number | undefined, target: number | undefined): string =>
  ratio === undefined || target === undefined ? ratioText(ratio) : `${formatJudgedRatio(ratio, target, 'at most')}×`;

/** A side's CPU a request of one probe, or that /proc could not tell. */
function usText(figures: BackendFigures, probe: string): string {
  const us = figures.totals.cpuUsPerRequest[probe];
  return us === undefined ? 'not readable from /proc here' : formatMicroseconds(us);
}

/**
 * How busy the service kept its core: CPU a request times requests a second. Under 100 % the service
 * also waited (for Redis, PostgreSQL or the clients), which has so far made each request cost more CPU
 * (docs/performance.md), so a CPU ratio is read beside it.
 */
function busyText(figures: BackendFigures): string {
  const us = figures.totals.cpuUsPerRequest[SERVICE_PROBE];
  if (us === undefined) return '';
  return `, busy ${((us * figures.totals.requestsPerSecond) / 10_000).toFixed(0)} % of its core`;
}

/** Requests per second, or generator-bound when the generator may have set the pace. */
function rateText(figures: BackendFigures, ofWhat: string, ratio: number | undefined): string {
  const share = figures.totals.generatorShare;
  const rate = `${formatNumber(figures.totals.requestsPerSecond)} req/s`;
  const bound = isGeneratorBound(share) ? `, generator-bound (the generator used ${(share * 100).toFixed(0)} %)` : '';
  return ratio === undefined ? `${rate}${bound}` : `${rate} (${ratio.toFixed(2)}× ${ofWhat})${bound}`;
}

/**
 * The rows of one scenario at one load: the bare baseline, the reference, and each other configuration
 * against it, with its target where the result is judged (backendLoads), as information otherwise.
 */
export function backendRows(result: BackendsResult): ReportRow[] {
  const [bare, reference, ...others] = result.figures;
  if (bare === undefined || reference === undefined) return [];
  const label = (figures: BackendFigures): string =>
    `backends ${result.scenario} (${result.connections} connections): ${figures.backend}`;
  const rows: ReportRow[] = [
    {
      check: label(bare),
      measured: `${usText(bare, SERVICE_PROBE)} a request${busyText(bare)}; ${rateText(bare, '', undefined)}`,
      target: '(the machine)',
      pass: true,
    },
  ];
  const overBare = cpuRatio(reference.totals, bare.totals, SERVICE_PROBE);
  rows.push({
    check: label(reference),
    measured:
      `${usText(reference, SERVICE_PROBE)} a request${busyText(reference)} (${ratioText(overBare)} ${BARE}); ` +
      rateText(reference, BARE, reference.totals.requestsPerSecond / Math.max(bare.totals.requestsPerSecond, 1e-9)),
    target: '(reference)',
    pass: true,
  });
  for (const figures of others) {
    const servers = SERVERS.filter((name) => name in figures.totals.cpuUsPerRequest).map(
      (name) => `; ${name} ${usText(figures, name)}`,
    );
    const target = figures.backend === BARE ? undefined : backendTarget(figures.backend, result.scenario);
    rows.push({
      check: label(figures),
      measured:
        `service ${judgedRatioText(figures.serviceCpuRatio, target)} (${usText(figures, SERVICE_PROBE)} a request${busyText(figures)})${servers.join('')}; ` +
        `with the servers ${ratioText(figures.allCpuRatio)}; ${rateText(figures, 'the reference', figures.throughputRatio)}`,
      target:
        target === undefined
          ? '(information)'
          : result.judged
            ? `service ≤ ${target}×`
            : `(judged at ${BUSY_CONNECTIONS} connections)`,
      pass:
        target === undefined ||
        !result.judged ||
        (figures.serviceCpuRatio !== undefined && figures.serviceCpuRatio <= target),
    });
  }
  return rows;
}
