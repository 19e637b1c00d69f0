// SIGUSR2 to a real `animal-store serve`: the keys file is reloaded at once, and a damaged one keeps the keys in force.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { request } from 'undici';
import { type Child, runCli, waitForListening } from '../helpers/child.js';

async function statusWith(url: string, key: string): Promise<number> {
  const response = await request(url, { headers: { authorization: `Bearer ${key}` } });
  await response.body.dump();
  return response.statusCode;
}

/** Waits until the child has printed a line matching `pattern` on `stream`. */
async function logged(child: Child, stream: 'stdout' | 'stderr', pattern: RegExp): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (
      child[stream]()
        .split('\n')
        .some((line) => pattern.test(line))
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`no line matching ${pattern} on ${stream}: ${child[stream]()}`);
}

test('SIGUSR2 reloads the keys file, says so, and keeps the keys in force when the file is damaged', async (t) => {
  if (process.platform === 'win32') return t.skip('no SIGUSR2 on Windows');
  const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-reload-'));
  const service = runCli(['serve', '--port', '0', '--data-dir', dataDir]);
  try {
    const apiUrl = await waitForListening(service);
    const created = runCli(['keys', 'create', '--plan', 'pro', '--data-dir', dataDir]);
    assert.equal(await created.exited, 0, created.stderr());
    const key = /(ask_[0-9A-Za-z]{36})/.exec(created.stdout())?.[1] as string;

    service.process.kill('SIGUSR2');
    await logged(service, 'stdout', /"msg":"keys file reloaded on SIGUSR2"/);
    // The line is written after the reload finished: the new key works now, without waiting for the file watch.
    assert.equal(await statusWith(`${apiUrl}/pets`, key), 200);

    await writeFile(join(dataDir, 'keys.json'), '{"keys": [damaged');
    service.process.kill('SIGUSR2');
    await logged(service, 'stderr', /"msg":"keys file not reloaded on SIGUSR2, the keys in force are kept: /);
    assert.equal(await statusWith(`${apiUrl}/pets`, key), 200, 'the keys in force are kept');
    assert.equal(service.process.exitCode, null, 'the service is still running');
  } finally {
    service.process.kill('SIGTERM');
    assert.equal(await service.exited, 0, service.stderr());
    await rm(dataDir, { recursive: true, force: true });
  }
});
