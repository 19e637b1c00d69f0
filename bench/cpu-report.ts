// How bench:compare prints CPU time a request beside a throughput ratio: each side's figure (the
// median of its rounds) and the median of the per-round ratios, so that a ratio measured on a noisy
// machine can be judged by a figure the noise moves less. Pure: numbers in, text out.
import { formatNumber } from './report.js';

/** What the CPU figures are read from: a side's per-round CPU µs a request, by probe name. */
export interface CpuFigures {
  roundCpuUsPerRequest: Record<string, ReadonlyArray<number | undefined>>;
  cpuUsPerRequest: Record<string, number | undefined>;
}

/** µs as printed: two decimals below 10, one below 100, whole above. */
export function formatMicroseconds(us: number): string {
  return `${formatNumber(us, us < 10 ? 2 : us < 100 ? 1 : 0)} µs`;
}

/** The median of the per-round ratios a / b of one probe; undefined when a round of either could not tell. */
export function cpuRatio(a: CpuFigures, b: CpuFigures, probe: string, probeOfB = probe): number | undefined {
  const roundsA = a.roundCpuUsPerRequest[probe];
  const roundsB = b.roundCpuUsPerRequest[probeOfB];
  if (roundsA === undefined || roundsB === undefined || roundsA.length === 0) return undefined;
  const ratios: number[] = [];
  for (let round = 0; round < roundsA.length; round++) {
    const x = roundsA[round];
    const y = roundsB[round];
    if (x === undefined || y === undefined || y <= 0) return undefined;
    ratios.push(x / y);
  }
  ratios.sort((x, y) => x - y);
  const middle = Math.floor(ratios.length / 2);
  return ratios.length % 2 === 1
    ? (ratios[middle] as number)
    : ((ratios[middle - 1] as number) + (ratios[middle] as number)) / 2;
}

/** "CPU a request 21.3 / 11.0 µs (1.94×)" for one probe of two sides, or why it is missing. */
export function cpuBeside(a: CpuFigures, b: CpuFigures, probe: string): string {
  const x = a.cpuUsPerRequest[probe];
  const y = b.cpuUsPerRequest[probe];
  const ratio = cpuRatio(a, b, probe);
  if (x === undefined || y === undefined || ratio === undefined) return 'CPU a request: not readable from /proc here';
  return `CPU a request ${formatMicroseconds(x)} / ${formatMicroseconds(y)} (${ratio.toFixed(2)}×)`;
}
