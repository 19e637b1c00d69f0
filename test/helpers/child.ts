// The CLI as a real child process: start it, wait for its listening line, stop it.
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

/** Waits until the child printed its listening line; resolves with the API address in it. */
export async function waitForListening(child: Child, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = /listening on (http:\/\/\S+)/.exec(child.stdout());
    if (match !== null) return match[1] as string;
    if (child.process.exitCode !== null) throw new Error(`exited ${child.process.exitCode}: ${child.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  child.process.kill('SIGKILL');
  throw new Error(`no listening line within ${timeoutMs} ms: ${child.stdout()} ${child.stderr()}`);
}
