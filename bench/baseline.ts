// The baseline: a bare node:http server that answers every request with the same bytes the service
// gave for the scenario (status, headers, body), doing no work at all: no routing, no auth, no
// limiter, no JSON. It is the upper bound of node:http on this machine, and the denominator of
// bench:compare's ratios. Run as a child process (it reads its answer from an environment variable).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { spawnChild, stopChild } from './local-service.js';

/** A recorded answer. Header values as the service sent them (a repeated header as several entries). */
export interface CannedAnswer {
  status: number;
  headers: [string, string][];
  body: string;
}

/** A node:http server that writes `answer` for every request. */
export function createBaselineServer(answer: CannedAnswer): Server {
  const body = Buffer.from(answer.body);
  // node:http adds Date, Connection and Keep-Alive itself, as it does for the service.
  const headers = answer.headers.filter(
    ([name]) => !['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name.toLowerCase()),
  );
  const flat = headers.flat();
  return createServer((req, res) => {
    // A request body (create) is drained unread, as any server must before answering on a kept-alive connection.
    req.resume();
    res.writeHead(answer.status, flat);
    res.end(body);
  });
}

export interface Baseline {
  /** The baseline's origin, e.g. http://127.0.0.1:40124 (every path gets the same answer). */
  origin: string;
  /** Its process, for its CPU time. */
  pid: number;
  close(): Promise<void>;
}

/** How a baseline is run other than as usual (instructions.ts runs a bundle of this file under valgrind). */
export interface BaselineRun {
  /** A command that runs node (valgrind and its options), as spawnChild's. */
  wrapper?: readonly string[];
  /** The script, this file by default. */
  script?: string;
  nodeArgs?: readonly string[];
}

/** Starts the baseline in a child process of its own, as the service runs in one. */
export async function startBaseline(answer: CannedAnswer, run: BaselineRun = {}): Promise<Baseline> {
  const { child, first } = await spawnChild<{ origin: string }>(
    run.script ?? 'bench/baseline.ts',
    { ANIMAL_STORE_BENCH_BASELINE: JSON.stringify(answer) },
    run.nodeArgs,
    undefined,
    run.wrapper,
  );
  return { origin: first.origin, pid: child.pid ?? 0, close: () => stopChild(child) };
}

/** Child-process entry: listen on a free port, report it, stop when the parent closes the channel. */
async function serveAsChild(): Promise<void> {
  const answer = JSON.parse(process.env.ANIMAL_STORE_BENCH_BASELINE ?? '') as CannedAnswer;
  const server = createBaselineServer(answer);
  // Same keep-alive as the service's default (5 s), so connection reuse is alike.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  process.send?.({ origin: `http://127.0.0.1:${port}` });
  process.once('disconnect', () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await serveAsChild();
