// Many processes on one port (node:cluster). The primary forks the workers, which share the listening
// port; it serves nothing itself. A stop signal to the primary drains every worker; a worker that dies
// unexpectedly is replaced (after a delay that grows while replacements keep dying young, so a crash
// loop does not spin), and each replacement is logged.
import cluster, { type Worker } from 'node:cluster';
import type { BackendsDescription } from '../app/describe-backends.js';

/** What a worker sends its primary once it listens: the line it would have printed on its own. */
export interface ListeningMessage {
  animalStore: 'listening';
  text: string;
}

export function isListeningMessage(message: unknown): message is ListeningMessage {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as { animalStore?: unknown }).animalStore === 'listening' &&
    typeof (message as { text?: unknown }).text === 'string'
  );
}

/**
 * Why `workers` processes cannot serve on `backends`, or undefined when they can. One process owns the
 * embedded log (its data directory is locked), and each process's in-memory limiter counts on its own:
 * more than one worker needs the shared store (PostgreSQL) and the shared limiter (Redis).
 */
export function workersRefusal(
  workers: number,
  backends: Pick<BackendsDescription, 'sharedStore' | 'sharedLimits'>,
): string | undefined {
  if (workers <= 1 || (backends.sharedStore && backends.sharedLimits)) return undefined;
  const why = backends.sharedStore
    ? 'each process would count rate limits on its own'
    : 'one process owns the data directory and its log';
  return (
    `--workers ${workers} needs a store and rate limits shared by every process, and ${why}; ` +
    `pass --database-url (PostgreSQL) and --redis-url (Redis), or use --workers 1`
  );
}

/** How long a worker must live to count as started well: one that dies sooner makes the next delay longer. */
export const QUICK_DEATH_MS = 10_000;
/** Longest delay before a replacement. */
export const MAX_REPLACEMENT_DELAY_MS = 30_000;

/**
 * Delay before replacing a worker, after `quickDeaths` workers in a row died young (counting this one):
 * none for the first (a worker that ran a while and died, such as one killed by an operator or the
 * OOM killer), then 100 ms, doubling, up to MAX_REPLACEMENT_DELAY_MS.
 */
export function replacementDelayMs(quickDeaths: number): number {
  if (quickDeaths <= 1) return 0;
  return Math.min(100 * 2 ** (quickDeaths - 2), MAX_REPLACEMENT_DELAY_MS);
}

function workersText(count: number): string {
  return count === 1 ? '1 worker' : `${count} workers`;
}

/** How long the workers have to drain after a stop signal before they are killed. */
const STOP_BOUND_MS = 30_000;

export interface PrimaryOptions {
  /** How many workers to keep running (2 or more in practice; 1 works too). */
  workers: number;
  /** The workers' script and its arguments; by default this process's own (as node:cluster does). */
  exec?: string;
  args?: readonly string[];
  /** Where lines about the workers go: starts and stops at info, deaths at warn. */
  log: { info(line: string): void; warn(line: string): void };
  /** Receives the first worker's listening line, once every worker listens. */
  print: (text: string) => void;
  /** Stop signals the primary handles (and relays to the workers as SIGTERM). */
  signals?: readonly NodeJS.Signals[];
  /** Signals relayed to every worker as they are (the reload signal: each worker reloads its keys and certificate). */
  relay?: readonly NodeJS.Signals[];
  now?: () => number;
}

export interface Primary {
  /** Resolves once every worker has stopped, with the exit code the primary should exit with. */
  readonly exited: Promise<number>;
  /** What a stop signal does: drain every worker. */
  stop(): void;
}

interface Slot {
  worker: Worker;
  startedAt: number;
  listening: boolean;
  /** The pid of the worker this one replaces. */
  replaces: number | undefined;
}

/** Forks the workers and looks after them until a stop signal. */
export function runPrimary(options: PrimaryOptions): Primary {
  const { workers: count, log, print } = options;
  const now = options.now ?? Date.now;
  const signals = options.signals ?? ['SIGTERM', 'SIGINT', 'SIGHUP'];
  const settings: Parameters<typeof cluster.setupPrimary>[0] = {};
  if (options.exec !== undefined) settings.exec = options.exec;
  if (options.args !== undefined) settings.args = [...options.args];
  cluster.setupPrimary(settings);

  const slots = new Set<Slot>();
  const pending = new Set<NodeJS.Timeout>();
  let started = false;
  let stopping = false;
  let quickDeaths = 0;
  let exitCode = 0;
  let startText = '';
  let finish: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => {
    finish = resolve;
  });
  let stopTimer: NodeJS.Timeout | undefined;

  const relay = options.relay ?? [];
  // Only to workers that listen: their handlers are in place (a signal's default action would kill one
  // still starting), and one still starting reads the files it would reload anyway.
  const relayToWorkers = (signal: NodeJS.Signals): void => {
    for (const slot of slots) if (slot.listening) slot.worker.process.kill(signal);
  };

  const done = (): void => {
    for (const signal of signals) process.off(signal, stop);
    for (const signal of relay) process.off(signal, relayToWorkers);
    if (stopTimer !== undefined) clearTimeout(stopTimer);
    finish(exitCode);
  };

  const fork = (replaces: number | undefined): void => {
    const slot: Slot = { worker: cluster.fork(), startedAt: now(), listening: false, replaces };
    slots.add(slot);
    slot.worker.on('message', (message: unknown) => {
      if (!isListeningMessage(message) || slot.listening) return;
      slot.listening = true;
      // The workers' lines are alike but for a note only one of them may carry (the first key it
      // created, shown once): the longest is printed, so that such a note is never lost.
      if (message.text.length > startText.length) startText = message.text;
      if (slot.replaces !== undefined)
        log.info(`worker pid ${slot.worker.process.pid} replaces pid ${slot.replaces} and listens`);
      if (!started && slots.size === count && [...slots].every((each) => each.listening)) {
        started = true;
        print(startText);
        log.info(
          `${count === 1 ? '1 worker listens' : `${count} workers listen`} on one port: pids ${[...slots].map((each) => each.worker.process.pid).join(', ')}`,
        );
      }
    });
    slot.worker.on('exit', (code, signal) => exit(slot, code, signal));
  };

  const exit = (slot: Slot, code: number | null, signal: string | null): void => {
    slots.delete(slot);
    const pid = slot.worker.process.pid;
    const how = signal === null ? `exit code ${code}` : signal;
    if (stopping) {
      // One still starting has no handler for the signal yet: its end by SIGTERM is the expected one.
      if (code !== 0 && slot.listening) {
        if (exitCode === 0) exitCode = 1;
        log.warn(`worker pid ${pid} did not stop cleanly (${how})`);
      }
      if (slots.size === 0) done();
      return;
    }
    if (!started && !slot.listening) {
      // A worker that cannot start (a bad setting, an unreachable database) says why itself; the others
      // would fail alike, so the primary gives up with its exit code instead of trying again and again.
      log.warn(`worker pid ${pid} could not start (${how}); stopping`);
      exitCode = code === null || code === 0 ? 1 : code;
      stopAll();
      return;
    }
    if (code === 0 && signal === null) {
      // Stopped on request (a signal sent to the worker itself): not replaced.
      log.info(
        `worker pid ${pid} stopped; not replaced (${slots.size} left; signal pid ${process.pid} to stop them all)`,
      );
      if (slots.size === 0) done();
      return;
    }
    quickDeaths = now() - slot.startedAt < QUICK_DEATH_MS ? quickDeaths + 1 : 1;
    const delayMs = replacementDelayMs(quickDeaths);
    log.warn(`worker pid ${pid} died (${how}); a replacement starts in ${delayMs} ms`);
    const timer = setTimeout(() => {
      pending.delete(timer);
      fork(pid);
    }, delayMs);
    pending.add(timer);
  };

  const stopAll = (): void => {
    stopping = true;
    for (const timer of pending) clearTimeout(timer);
    pending.clear();
    if (slots.size === 0) {
      done();
      return;
    }
    for (const slot of slots) slot.worker.process.kill('SIGTERM');
    stopTimer = setTimeout(() => {
      for (const slot of slots) slot.worker.process.kill('SIGKILL');
    }, STOP_BOUND_MS);
    stopTimer.unref();
  };

  function stop(): void {
    if (stopping) return;
    log.info(`stopping ${workersText(slots.size)}`);
    stopAll();
  }

  for (const signal of signals) process.on(signal, stop);
  for (const signal of relay) process.on(signal, relayToWorkers);
  log.info(`primary pid ${process.pid} starts ${workersText(count)}`);
  for (let index = 0; index < count; index += 1) fork(undefined);
  return { exited, stop };
}
