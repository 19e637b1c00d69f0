// Running the project's build tools (npm, node, a built binary) as child processes for the package tests.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What a finished command printed and how it ended. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment of children: without NODE_V8_COVERAGE, so that under `npm test` c8 does not
 * collect (and then report on) the coverage of tsc, npm and esbuild.
 */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { NODE_V8_COVERAGE: _coverage, ...env } = process.env;
  return { ...env, ...extra };
}

/** Runs `command args` in `cwd` to its end, or kills it after `timeoutMs`; never throws for a non-zero exit. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: options.env ?? childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      // A process it started (npm, say) may still hold the pipes, and then 'close' never comes: a
      // run past its time ends here, as one killed (code null), rather than hang the test file.
      setTimeout(() => resolve({ code: null, stdout, stderr }), 1_000).unref();
    }, options.timeoutMs ?? 60_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Why npm cannot be used here, or undefined when it can. */
export function npmMissing(): string | undefined {
  const probe = spawnSync('npm', ['--version'], { encoding: 'utf8', env: childEnv(), timeout: 120_000 });
  if (probe.error !== undefined) return `npm is not available: ${probe.error.message}`;
  return probe.status === 0 ? undefined : `npm --version failed: ${probe.stderr}`;
}

/** Fails with everything the command printed unless it exited 0. */
export function assertRan(ran: Ran, what: string): void {
  if (ran.code !== 0)
    throw new Error(`${what} exited ${String(ran.code)}\n--- stdout\n${ran.stdout}\n--- stderr\n${ran.stderr}`);
}
