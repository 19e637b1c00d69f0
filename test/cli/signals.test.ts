// Signals as a person at a terminal expects them. Closing the terminal sends SIGHUP to the whole
// process group: the service stops as it does on Ctrl-C (no orphan keeps the port and the lock), both
// as `npm start` and as the program itself; it says so in one line. A second start on a directory in
// use says once which pid owns it and exits 1.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli, waitForListening } from '../helpers/child.js';
import { groupAlive, portFree } from '../helpers/supervised.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function groupGone(pgid: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (groupAlive(pgid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
  assert.ok(!groupAlive(pgid), `a process of group ${pgid} is still running`);
}

/** Starts `command args` as the leader of a new process group, as a shell does for a terminal job. */
function startGroup(
  command: string,
  args: string[],
): { child: ChildProcess; out: () => string; closed: Promise<unknown> } {
  const child = spawn(command, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  // Every process of the group holds these pipes: they close once the last one has exited and all it
  // wrote has been read here.
  const closed = once(child, 'close');
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return { child, out: () => out, closed };
}

async function listeningPort(out: () => string): Promise<number> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out());
    if (match !== null) return Number(match[1]);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`no listening line: ${out()}`);
}

for (const [name, command, args] of [
  ['npm start', 'npm', ['start', '--', '--port', '0', '--data-dir']],
  ['the program', process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--port', '0', '--data-dir']],
] as const) {
  test(
    `SIGHUP to the process group of ${name} (a terminal closed) stops it: port free, lock released`,
    {
      timeout: 120_000,
    },
    async (t) => {
      if (process.platform === 'win32') return t.skip('no process groups on Windows');
      const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-hup-'));
      const { child, out, closed } = startGroup(command, [...args, dataDir]);
      const pgid = child.pid as number;
      try {
        const port = await listeningPort(out);
        assert.ok(existsSync(join(dataDir, 'LOCK')));
        process.kill(-pgid, 'SIGHUP');
        await groupGone(pgid);
        await closed;
        assert.match(out(), /animal-store stopped: 0 requests drained, data saved/);
        assert.ok(await portFree(port), 'the port is free');
        assert.ok(!existsSync(join(dataDir, 'LOCK')), 'the lock is released');
      } finally {
        if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  );
}

test(
  'a second start on a directory in use says once which pid owns it, and exits 1',
  { timeout: 120_000 },
  async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-owned-'));
    const first = runCli(['serve', '--port', '0', '--data-dir', dataDir]);
    try {
      await waitForListening(first);
      const second = runCli(['serve', '--port', '0', '--data-dir', dataDir]);
      assert.equal(await second.exited, 1, second.stderr());
      const lines = second.stderr().trimEnd().split('\n');
      assert.equal(lines.length, 1, second.stderr());
      assert.match(
        lines[0] as string,
        new RegExp(`^animal-store: Another process \\(pid ${first.process.pid}\\) owns`),
      );
      assert.equal(lines[0]?.match(/stop it/gi)?.length, 1, 'the advice is given once');
    } finally {
      first.process.kill('SIGTERM');
      assert.equal(await first.exited, 0);
      await rm(dataDir, { recursive: true, force: true });
    }
  },
);
