// Creates at a fixed arrival rate for bench:delivery: each POST /pets goes out at its intended time
// (i / rate after the start) on keep-alive connections, whatever the answers before it did, and the
// moment its 201 arrived is kept by pet id, on the monotonic clock the receivers stamp with.
import { Agent, request } from 'node:http';
import type { Target } from './scenarios.js';

/** Milliseconds of the monotonic clock, comparable between the processes of one machine. */
export const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

export interface PacedResult {
  /** When the 201 of each measured pet arrived (monotonic ms), by pet id. */
  answeredMs: Map<number, number>;
  /** The same for every pet, those of the warm-up included. */
  allAnsweredMs: Map<number, number>;
  /** How long the warm-up lasted, ms, and whether it ended because `warmedUp` said so (else: its limit). */
  warmupMs: number;
  warmedUp: boolean;
  /** From each measured request's intended send time to its 201, ms. */
  apiLatencyMs: number[];
  /** Measured requests sent, and those not answered 201 (errors included). */
  sent: number;
  failed: number;
  problems: string[];
}

const CONNECTIONS = 64;
const BODY = JSON.stringify({ name: 'Bench pet', categoryId: 3, status: 'available' });

/**
 * Sends creates at `ratePerSecond`: a warm-up of `warmup.minMs` (not measured), longer, up to
 * `warmup.maxMs`, until `warmup.done()` says the service has caught up; then durationMs measured.
 * Resolves once all are answered. `allAnsweredMs` is filled as the 201s arrive, so that the caller can
 * watch the run while it goes on.
 */
export function pacedCreates(
  target: Target,
  ratePerSecond: number,
  warmup: { minMs: number; maxMs: number; done: () => boolean },
  durationMs: number,
  allAnsweredMs = new Map<number, number>(),
): Promise<PacedResult> {
  // With a timeout of its own, node:http's Agent also heeds the service's `Keep-Alive: timeout=` and
  // lets an idle connection go a second before the service closes it. Without one it keeps idle
  // connections forever, and a create sent on one just as the service closed it failed with
  // ECONNRESET (a few in 10,000, after a burst had opened more connections than the rate needs).
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS, timeout: 60_000 });
  const url = new URL(`${target.origin}${target.basePath}/pets`);
  const headers = {
    authorization: `Bearer ${target.key ?? ''}`,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(BODY)),
  };
  const result: PacedResult = {
    answeredMs: new Map(),
    allAnsweredMs,
    warmupMs: 0,
    warmedUp: false,
    apiLatencyMs: [],
    sent: 0,
    failed: 0,
    problems: [],
  };
  const intervalMs = 1000 / ratePerSecond;
  const startMs = monotonicMs();
  // Set when the warm-up ends: the first intended send time measured, and the end of the run.
  let measuredFromMs = Number.POSITIVE_INFINITY;
  let endMs = Number.POSITIVE_INFINITY;
  let outstanding = 0;
  let finished = false;
  return new Promise((resolve) => {
    const settle = (): void => {
      if (finished && outstanding === 0) {
        agent.destroy();
        resolve(result);
      }
    };
    const fail = (measured: boolean, problem: string): void => {
      if (measured) result.failed++;
      if (result.problems.length < 5) result.problems.push(problem);
    };
    const send = (intendedMs: number): void => {
      const measured = intendedMs >= measuredFromMs;
      if (measured) result.sent++;
      outstanding++;
      const req = request(url, { method: 'POST', headers, agent }, (response) => {
        const answeredMs = monotonicMs();
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.once('end', () => {
          outstanding--;
          if (response.statusCode !== 201) fail(measured, `${response.statusCode}: ${text.slice(0, 100)}`);
          else {
            const id = (JSON.parse(text) as { id: number }).id;
            result.allAnsweredMs.set(id, answeredMs);
            if (measured) {
              result.answeredMs.set(id, answeredMs);
              result.apiLatencyMs.push(answeredMs - intendedMs);
            }
          }
          settle();
        });
      });
      req.once('error', (error) => {
        outstanding--;
        fail(measured, error.message);
        settle();
      });
      req.end(BODY);
    };
    let next = startMs;
    const tick = (): void => {
      const nowMs = monotonicMs();
      if (measuredFromMs === Number.POSITIVE_INFINITY && nowMs - startMs >= warmup.minMs) {
        result.warmedUp = warmup.done();
        if (result.warmedUp || nowMs - startMs >= warmup.maxMs) {
          measuredFromMs = next;
          endMs = next + durationMs;
          result.warmupMs = next - startMs;
        }
      }
      while (next <= nowMs && next < endMs) {
        send(next);
        next += intervalMs;
      }
      if (next >= endMs) {
        finished = true;
        settle();
        return;
      }
      setTimeout(tick, Math.max(0, next - monotonicMs()));
    };
    tick();
  });
}
