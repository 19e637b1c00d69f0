// `npm start` under a supervisor: Docker, systemd and supervisord hold the pid of the process they
// started (npm's) and send SIGTERM to it alone, not to a process group. The signal must reach the
// service, which drains, releases the port and the data directory's lock, and exits; npm exits with
// it, cleanly, so the supervisor sees a clean stop. No process is left behind.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  isRunning,
  killGroup,
  lockOwner,
  portFree,
  startSupervised,
  waitFor,
  waitForListeningPort,
  within,
} from '../helpers/supervised.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Bounds for a busy 2-core machine: npm and tsx take a few seconds to start there. */
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

test(
  "SIGTERM to npm start's pid stops the service gracefully: npm exits 0 after it, no process is left, the port and the lock are free",
  { skip: process.platform === 'win32' ? 'npm runs scripts with cmd.exe on Windows' : false, timeout: 120_000 },
  async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-supervised-'));
    const npm = startSupervised('npm', ['start', '--', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
      cwd: ROOT,
    });
    let service: number | undefined;
    try {
      const port = await waitForListeningPort(npm, START_TIMEOUT_MS);
      service = await lockOwner(dataDir);
      assert.notEqual(service, npm.process.pid, 'the service runs in a process of its own under npm');

      npm.process.kill('SIGTERM');
      const { code, signal } = await within(
        npm.exited,
        STOP_TIMEOUT_MS,
        () => `npm to exit after SIGTERM:\n${npm.output()}`,
      );
      const pid = service;
      await waitFor(
        () => (isRunning(pid) ? undefined : true),
        STOP_TIMEOUT_MS,
        () => `the service (pid ${pid}) to exit after npm did:\n${npm.output()}`,
      );

      assert.match(npm.output(), /animal-store stopped: 0 requests drained, data saved/);
      // The signal itself reached the service: it did not stop only because its parent went away.
      assert.doesNotMatch(npm.output(), /is gone; stopping/);
      assert.deepEqual({ code, signal }, { code: 0, signal: null }, npm.output());
      assert.ok(!existsSync(join(dataDir, 'LOCK')), 'the lock is released');
      assert.ok(await portFree(port), 'the port is free');
    } finally {
      killGroup(npm);
      if (service !== undefined && isRunning(service)) process.kill(service, 'SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  },
);
