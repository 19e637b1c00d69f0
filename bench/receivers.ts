// Webhook receivers for the events benchmarks, in a child process (bench/receiver-child.ts) pinned
// where the generator is: the service's core does the service's work only, and what the receivers
// cost is counted on the client's side.
import type { ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { spawnChild, stopChild } from './local-service.js';
import { pinPlan, SERVICE_CPUS_VARIABLE } from './pinning.js';

export interface Receivers {
  /** One URL per receiver, each on a port of its own. */
  urls: string[];
  pid: number;
  /** Requests received so far, and the pet.created events stamped since the last call (when recording). */
  report(): Promise<{ received: number; stamps: [number, number, number][] }>;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  count: number;
  /** The index of a receiver that takes requests and never answers. */
  hang?: number;
  record: boolean;
}

/** Starts the receivers, pinned to the generator's cores where the services are pinned. */
export async function startReceivers(options: ReceiverOptions): Promise<Receivers> {
  const serviceCpus = process.env[SERVICE_CPUS_VARIABLE];
  const generatorCpus = pinPlan(availableParallelism())?.generatorCpus;
  // spawnChild pins to SERVICE_CPUS_VARIABLE: for the receivers, that is the generator's cores.
  if (serviceCpus !== undefined && generatorCpus !== undefined) process.env[SERVICE_CPUS_VARIABLE] = generatorCpus;
  let child: ChildProcess;
  let ports: number[];
  try {
    ({
      child,
      first: { ports },
    } = await spawnChild<{ ports: number[] }>('bench/receiver-child.ts', {
      ANIMAL_STORE_BENCH_RECEIVERS: JSON.stringify({
        count: options.count,
        hang: options.hang ?? -1,
        record: options.record,
      }),
    }));
  } finally {
    if (serviceCpus !== undefined) process.env[SERVICE_CPUS_VARIABLE] = serviceCpus;
  }
  return {
    urls: ports.map((port, index) => `http://127.0.0.1:${port}/hook/${index}`),
    pid: child.pid ?? 0,
    report: () =>
      new Promise((resolve) => {
        child.once('message', (message) =>
          resolve(message as { received: number; stamps: [number, number, number][] }),
        );
        child.send('report');
      }),
    close: () => stopChild(child),
  };
}
