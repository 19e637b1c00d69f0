// The CLI as a real child process: start it, wait for its listening line or any line it prints, stop it;
// and the cluster primary (test/helpers/cluster-primary.ts) as one.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Child {
  process: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Runs `animal-store ARGS` from the sources (node --import tsx src/cli.ts). */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { process: child, stdout: () => out, stderr: () => err, exited };
}

/**
 * Runs the cluster primary of src/cli/cluster.ts over `config` (its workers, the script they run and
 * its arguments); `detached` makes it the leader of a process group of its own.
 */
export function runClusterPrimary(config: object, env: NodeJS.ProcessEnv = {}, detached = false): Child {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/helpers/cluster-primary.ts', JSON.stringify(config)],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached,
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { process: child, stdout: () => out, stderr: () => err, exited };
}

/**
 * Waits until `read()` (a child's output so far) matches `pattern`; resolves with the match. Fails
 * after `timeoutMs`, naming `what` when given and showing what was read.
 */
export async function waitForMatch(
  read: () => string,
  pattern: RegExp,
  { what, timeoutMs = 30_000 }: { what?: string; timeoutMs?: number } = {},
): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = pattern.exec(read());
    if (match !== null) return match;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`${what === undefined ? '' : `${what}: `}nothing matched ${pattern} in ${read()}`);
}

/**
 * Waits until the child printed its listening line; resolves with the API address in it. A start takes
 * a second or two, but one from the sources (tsx compiling them) on a machine busy with other work has
 * taken over 20 s: the bound only says when to give up, so it is generous.
 */
export async function waitForListening(child: Child, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = /listening on (https?:\/\/\S+)/.exec(child.stdout());
    if (match !== null) return match[1] as string;
    if (child.process.exitCode !== null) throw new Error(`exited ${child.process.exitCode}: ${child.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  child.process.kill('SIGKILL');
  throw new Error(`no listening line within ${timeoutMs} ms: ${child.stdout()} ${child.stderr()}`);
}
