// The service as a supervisor (Docker, systemd, supervisord) runs it: a command started as one
// process whose pid the supervisor holds and signals, with wrappers (npm, a shell) possibly between it
// and the service. Every wait is bounded.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** A command started in a process group of its own, so that cleanup can reach whatever it left. */
export interface Supervised {
  /** The process the supervisor started, and holds the pid of. */
  process: ChildProcess;
  /** Everything printed so far, stdout and stderr together. */
  output(): string;
  /** Resolves with how the started process ended: its exit code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `command args` in `cwd` as the leader of a new process group. */
export function startSupervised(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Supervised {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  return { process: child, output: () => output, exited };
}

/** Polls `check` until it returns a value other than undefined, or fails with `what` after `timeoutMs`. */
export async function waitFor<T>(check: () => T | undefined, timeoutMs: number, what: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Resolves as `promise` does, or fails with `what` after `timeoutMs`. */
export async function within<T>(promise: Promise<T>, timeoutMs: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`not within ${timeoutMs} ms: ${what()}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The port of the listening line the service printed, once it has. */
export function waitForListeningPort(supervised: Supervised, timeoutMs: number): Promise<number> {
  return waitFor(
    () => {
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(supervised.output());
      if (match !== null) return Number(match[1]);
      if (supervised.process.exitCode !== null) throw new Error(`exited before listening:\n${supervised.output()}`);
      return undefined;
    },
    timeoutMs,
    () => `a listening line from ${supervised.process.spawnargs.join(' ')}:\n${supervised.output()}`,
  );
}

/** The pid of the process that holds the data directory's lock (the service itself). */
export async function lockOwner(dataDir: string): Promise<number> {
  return Number((await readFile(join(dataDir, 'LOCK'), 'utf8')).trim());
}

/** Whether process `pid` runs: it exists and, where /proc tells, is not a zombie waiting to be reaped. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // /proc/PID/stat: "pid (name) S ...", the state after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

/** Whether any process of the process group `pgid` is left. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether `port` can be bound again on 127.0.0.1. */
export async function portFree(port: number): Promise<boolean> {
  const server = createServer();
  server.listen({ port, host: '127.0.0.1', exclusive: true });
  const [outcome] = (await Promise.race([once(server, 'listening'), once(server, 'error')])) as [unknown];
  if (outcome instanceof Error) return false;
  server.close();
  await once(server, 'close');
  return true;
}

/** Kills whatever is left of the group `supervised` leads (nothing, when the test passed). */
export function killGroup(supervised: Supervised): void {
  try {
    process.kill(-(supervised.process.pid as number), 'SIGKILL');
  } catch {
    // The group is gone.
  }
}
