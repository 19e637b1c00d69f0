// The reload signal to a real `animal-store serve`: the keys file is reloaded at once, and a damaged one
// keeps the keys in force. The signal sent is the one the keys file names to operators when it can no
// longer be watched, so that message is checked against what the service does, not against a string.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { request } from 'undici';
import { FileKeyTable } from '../../src/store/embedded/key-file.js';
import { type Child, runCli, waitForListening } from '../helpers/child.js';

/** What the keys file tells the operator when it cannot be watched (here: its directory does not exist). */
function unwatchedMessage(): string {
  const reasons: string[] = [];
  const stop = new FileKeyTable(join(tmpdir(), 'animal-store-no-such-directory', 'data')).watch(
    () => assert.fail('no change can be seen in a directory that does not exist'),
    (reason) => reasons.push(reason),
  );
  stop();
  assert.equal(reasons.length, 1, 'the failure is reported once');
  return reasons[0] as string;
}

/** The one signal that message names. */
function signalNamedByKeysFile(): NodeJS.Signals {
  const named = unwatchedMessage().match(/\bSIG[A-Z0-9]+\b/g) ?? [];
  assert.equal(named.length, 1, `one signal is named: ${unwatchedMessage()}`);
  return named[0] as NodeJS.Signals;
}

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

test('a keys file that can no longer be watched tells the operator so, naming the file and a signal that does not stop the service', () => {
  const message = unwatchedMessage();
  assert.match(message, /keys\.json are no longer noticed/);
  const signal = signalNamedByKeysFile();
  assert.ok(!['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGKILL'].includes(signal), `${signal} stops the service`);
});

test('the signal the keys file names reloads the keys file, says so, and keeps the keys in force when the file is damaged', async (t) => {
  if (process.platform === 'win32') return t.skip('no SIGUSR2 on Windows');
  const signal = signalNamedByKeysFile();
  const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-reload-'));
  const service = runCli(['serve', '--port', '0', '--data-dir', dataDir]);
  try {
    const apiUrl = await waitForListening(service);
    const created = runCli(['keys', 'create', '--plan', 'pro', '--data-dir', dataDir]);
    assert.equal(await created.exited, 0, created.stderr());
    const key = /(ask_[0-9A-Za-z]{36})/.exec(created.stdout())?.[1] as string;

    service.process.kill(signal);
    await logged(service, 'stdout', new RegExp(`"msg":"keys file reloaded on ${signal}"`));
    // The line is written after the reload finished: the new key works now, without waiting for the file watch.
    assert.equal(await statusWith(`${apiUrl}/pets`, key), 200);

    await writeFile(join(dataDir, 'keys.json'), '{"keys": [damaged');
    service.process.kill(signal);
    await logged(
      service,
      'stderr',
      new RegExp(`"msg":"keys file not reloaded on ${signal}, the keys in force are kept: `),
    );
    assert.equal(await statusWith(`${apiUrl}/pets`, key), 200, 'the keys in force are kept');
    assert.equal(service.process.exitCode, null, 'the service is still running');
  } finally {
    service.process.kill('SIGTERM');
    assert.equal(await service.exited, 0, service.stderr());
    await rm(dataDir, { recursive: true, force: true });
  }
});
