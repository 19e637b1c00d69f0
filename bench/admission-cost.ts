// The admission target: authentication and rate limiting together cost at most 5 % of the list route.
// Both sides are CPU time, so the load generator sharing the machine does not blur them:
//   admission  the dispatcher's admission step for one request (src/http/admission.ts), timed
//              in-process over many requests: the per-address check, the Authorization header parsed
//              and the key found by its hash, both token buckets charged, the rate-limit header
//              fields rendered and set on the answer's headers;
//   route      the service's CPU time per answered list request (user + system, from /proc), at
//              full speed, everything included (node:http, routing, paging, the socket writes).
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { isPending } from '../src/core/awaitable.js';
import { systemClock } from '../src/core/clock.js';
import { Admission } from '../src/http/admission.js';
import { ResponseHeaders } from '../src/http/response-headers.js';
import { keysFromSpecs } from '../src/keys/configured-keys.js';
import { KeyRing } from '../src/keys/key-ring.js';
import { MemoryLimiter } from '../src/limits/index.js';

/** Requests timed per measurement: long enough for the JIT to settle, short enough to take a second. */
const ADMISSIONS = 300_000;
const KEY = 'bench-admission-key-0123456789abcdef';

/** Nanoseconds of CPU that admitting one authenticated request takes, median of `rounds` runs of `admissions`. */
export function admissionNanoseconds(rounds = 5, admissions = ADMISSIONS): number {
  const keys = new KeyRing(keysFromSpecs([{ key: KEY, plan: 'enterprise', perMinute: 1e12, perDay: 1e12 }], 'bench'));
  const limiter = new MemoryLimiter(systemClock);
  const authorization = `Bearer ${KEY}`;
  // What the dispatcher reads of a request: the headers, the raw list (repeat checks), the peer.
  const req = {
    headers: { host: '127.0.0.1', authorization },
    rawHeaders: ['Host', '127.0.0.1', 'Authorization', authorization],
    socket: { remoteAddress: '127.0.0.1' },
  } as unknown as IncomingMessage;
  const admission = new Admission({
    keys,
    limiter,
    trustProxy: false,
    maxInFlight: 1,
    isAccepting: () => true,
    observe: undefined,
  });
  const admitOne = (): ResponseHeaders => {
    const headers = new ResponseHeaders('bench');
    if (isPending(admission.admit(req, headers))) throw new Error('the in-memory limiter answered later');
    return headers;
  };
  const samples: number[] = [];
  for (let round = 0; round < rounds + 1; round++) {
    const started = performance.now();
    for (let index = 0; index < admissions; index++) admitOne();
    // The first round only warms the JIT up.
    if (round > 0) samples.push(((performance.now() - started) * 1e6) / admissions);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] as number;
}

/** CPU time (user + system) a process has used so far, in milliseconds, from /proc; undefined elsewhere. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'; utime and
    // stime are fields 14 and 15 of the whole line, in clock ticks (100 per second on Linux).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}
