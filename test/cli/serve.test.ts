// The newcomer's path: `animal-store serve` in a real child process, first key, restart, bad flags.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { type Child, runCli, waitForListening } from '../helpers/child.js';

let dataDir: string;
before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'animal-store-cli-'));
});
after(() => rm(dataDir, { recursive: true, force: true }));

async function getJson(url: string, key?: string): Promise<{ status: number; body: unknown }> {
  const response = await request(url, { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } });
  return { status: response.statusCode, body: await response.body.json() };
}

test('the first start creates a key, prints it once with a curl line, and stores only its hash', async () => {
  const child = runCli(['serve', '--port', '0', '--data-dir', dataDir]);
  const apiUrl = await waitForListening(child);
  assert.match(apiUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  const key = /(ask_[0-9A-Za-z]{36})/.exec(child.stdout())?.[1];
  assert.ok(key, child.stdout());
  assert.match(child.stdout(), new RegExp(`curl -H "Authorization: Bearer ${key}" ${apiUrl}/pets`));
  assert.doesNotMatch(await readFile(join(dataDir, 'keys.json'), 'utf8'), new RegExp(key));
  assert.equal((await getJson(`${apiUrl}/pets`, key)).status, 200);
  const created = await request(`${apiUrl}/pets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: '{"name":"Rex","categoryId":1}',
  });
  assert.equal(created.statusCode, 201);
  await created.body.dump();
  assert.deepEqual((await getJson(apiUrl.replace('/v1', '/healthz'))).body, { status: 'ok' });

  child.process.kill('SIGTERM');
  assert.equal(await child.exited, 0);
  assert.ok(!existsSync(join(dataDir, 'LOCK')), 'the lock is released');

  // A restart prints no new key, and the old key and the data are still there.
  const again = runCli(['serve', '--port', '0', '--data-dir', dataDir]);
  const againUrl = await waitForListening(again);
  assert.doesNotMatch(again.stdout(), /ask_/);
  const list = await getJson(`${againUrl}/pets`, key);
  assert.deepEqual(list.body, [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }]);
  again.process.kill('SIGINT');
  assert.equal(await again.exited, 0);
});

test('keys from ANIMAL_STORE_KEYS are accepted and no first key is made', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-cli-env-'));
  try {
    const child = runCli(['--port', '0'], {
      ANIMAL_STORE_DATA_DIR: dir,
      ANIMAL_STORE_KEYS: 'my-operator-key-0123:pro',
    });
    const apiUrl = await waitForListening(child);
    assert.doesNotMatch(child.stdout(), /ask_/);
    const response = await request(`${apiUrl}/pets`, { headers: { authorization: 'Bearer my-operator-key-0123' } });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['x-ratelimit-limit'], '300');
    await response.body.dump();
    child.process.kill('SIGTERM');
    assert.equal(await child.exited, 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('bad flags and variables exit with code 2 and one line naming them', async () => {
  for (const [args, env, pattern] of [
    [['serve', '--port', 'abc'], {}, /--port must be a port number/],
    [['serve', '--nope'], {}, /unknown option --nope \(see animal-store serve --help\)/],
    [['serve'], { ANIMAL_STORE_PORT: '99999' }, /ANIMAL_STORE_PORT must be a port number/],
    [['serve', '--durability', 'sometimes'], {}, /--durability must be always, interval or never/],
    [
      ['serve', '--ban-ms', '0'],
      {},
      /--ban-ms must be a whole number from 1 to 86400000, not "0" \(see animal-store serve --help\)/,
    ],
    [
      ['serve'],
      { ANIMAL_STORE_REFUSALS_BEFORE_BAN: '5000' },
      /ANIMAL_STORE_REFUSALS_BEFORE_BAN must be a whole number from 1 to 1000, not "5000"/,
    ],
    [['serve', '--port', '0'], { ANIMAL_STORE_KEYS: 'short' }, /ANIMAL_STORE_KEYS|option keys/],
    [['frobnicate'], {}, /unknown command "frobnicate"/],
    [
      ['serve', '--cors-origins', 'https://ok.example,notanorigin'],
      {},
      /--cors-origins must list origins such as https:\/\/app\.example\.com \(scheme and host, no path\), not "notanorigin"/,
    ],
    [['serve'], { ANIMAL_STORE_CORS_ORIGINS: 'https://a.example/path' }, /ANIMAL_STORE_CORS_ORIGINS must list origins/],
    [['serve', '--public-url', 'notaurl'], {}, /--public-url must be an http or https address/],
    [['serve', '--staging-url', 'https://{region}.example/v1'], {}, /--staging-url must be an http or https address/],
    [['serve', '--base-path', 'v1'], {}, /--base-path must look like \/v1/],
    [
      ['serve', '--port', '0'],
      { ANIMAL_STORE_KEYS: 'enterprise-key-0123456789:enterprise:10' },
      /ANIMAL_STORE_KEYS entry 1 needs two positive whole numbers after the plan/,
    ],
    [
      ['serve', '--port', '0', '--host', 'nonexistent.invalid'],
      {},
      /host nonexistent\.invalid cannot be resolved to an address; pass --host/,
    ],
  ] as const) {
    const unused = join(dataDir, 'unused');
    const child = runCli(args, { ANIMAL_STORE_DATA_DIR: unused, ...env });
    assert.equal(await child.exited, 2, `${args.join(' ')}: ${child.stderr()}`);
    assert.match(child.stderr(), pattern);
    assert.equal(child.stderr().trim().split('\n').length, 1, child.stderr());
    assert.ok(!existsSync(unused), `${args.join(' ')}: nothing is created`);
  }
});

test('a port in use is exit code 2 naming the port', async () => {
  const blocker = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => blocker.once('listening', resolve));
  const { port } = blocker.address() as { port: number };
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-cli-port-'));
  try {
    const child = runCli(['serve', '--port', String(port), '--data-dir', dir]);
    assert.equal(await child.exited, 2);
    assert.match(child.stderr(), new RegExp(`port ${port} is in use`));
    assert.equal(child.stderr().trim().split('\n').length, 1, child.stderr());
    // Nothing was created: no lock, no log and above all no first key that nobody was shown.
    assert.deepEqual(await readdir(dir), []);
    const fresh = join(dir, 'fresh');
    const second = runCli(['serve', '--port', String(port), '--data-dir', fresh]);
    assert.equal(await second.exited, 2);
    assert.ok(!existsSync(fresh), 'a data directory that did not exist is not created');
  } finally {
    blocker.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('an address that is not on this machine is exit code 2 naming it, with nothing created', async () => {
  const dir = join(dataDir, 'not-here');
  // 192.0.2.1 is TEST-NET-1 (RFC 5737): never a local address.
  const child = runCli(['serve', '--port', '8089', '--host', '192.0.2.1', '--data-dir', dir]);
  assert.equal(await child.exited, 2, child.stderr());
  assert.match(child.stderr(), /address 192\.0\.2\.1 is not on this machine/);
  assert.ok(!existsSync(dir));
});

test('--help lists every flag with an example', async () => {
  const child = runCli(['serve', '--help']);
  assert.equal(await child.exited, 0);
  for (const flag of ['--port', '--host', '--data-dir', '--base-path', '--max-body-bytes', '--durability'])
    assert.match(child.stdout(), new RegExp(flag));
  assert.match(child.stdout(), /Examples:/);
});

test('an unusable data directory is exit code 2 with one line naming it and the fix', async () => {
  const file = join(dataDir, 'a-file');
  await writeFile(file, 'not a directory');
  const cases: { dir: string; pattern: RegExp }[] = [
    { dir: join(file, 'data'), pattern: /a part of its path is a file, not a directory \(ENOTDIR\)/ },
  ];
  // A read-only file system, where this machine lets us mount one (root in CI); skipped otherwise.
  const readOnly = join(dataDir, 'read-only');
  await mkdir(readOnly);
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,ro', 'tmpfs', readOnly]).status === 0;
  if (mounted)
    cases.push(
      { dir: join(readOnly, 'data'), pattern: /read-only file system \(EROFS\)/ },
      { dir: readOnly, pattern: /read-only file system \(EROFS\)/ },
    );
  try {
    for (const { dir, pattern } of cases) {
      for (const args of [
        ['serve', '--port', '0', '--data-dir', dir],
        ['keys', 'create', '--plan', 'free', '--init', '--data-dir', dir],
      ]) {
        const child = runCli(args);
        assert.equal(await child.exited, 2, `${args.join(' ')}: ${child.stderr()}`);
        assert.match(child.stderr(), new RegExp(`cannot use the data directory ${dir.replaceAll('/', '\\/')}: `));
        assert.match(child.stderr(), pattern);
        assert.match(child.stderr(), /pass --data-dir with a writable directory/);
        assert.equal(child.stderr().trim().split('\n').length, 1, child.stderr());
        assert.ok(!existsSync(dir) || dir === readOnly, `${dir} was not created`);
      }
    }
  } finally {
    if (mounted) spawnSync('umount', [readOnly]);
  }
});

// A data directory owned by a running service: test/cli/signals.test.ts (one line with the pid, exit 1).

test('a torn last record is cut off with a warning on stderr naming the file and byte offset; access lines go to stdout', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-cli-torn-'));
  const env = { ANIMAL_STORE_KEYS: 'torn-test-key-0123456789:pro' };
  const children: Child[] = [];
  try {
    const first = runCli(['serve', '--port', '0', '--data-dir', dir], env);
    children.push(first);
    const apiUrl = await waitForListening(first);
    const created = await request(`${apiUrl}/pets`, {
      method: 'POST',
      headers: { authorization: 'Bearer torn-test-key-0123456789', 'content-type': 'application/json' },
      body: '{"name":"Kept","categoryId":1}',
    });
    assert.equal(created.statusCode, 201);
    await created.body.dump();
    first.process.kill('SIGTERM');
    assert.equal(await first.exited, 0);
    const log = join(dir, 'animals.log');
    const goodBytes = (await readFile(log)).length;
    await writeFile(log, '{"op":"pet","pet":{"id":2,"na', { flag: 'a' });

    // Given relative to the working directory (the repository), it is printed in full.
    const second = runCli(
      ['serve', '--port', '0', '--data-dir', relative(fileURLToPath(new URL('../../', import.meta.url)), dir)],
      env,
    );
    children.push(second);
    const url = await waitForListening(second);
    assert.ok(second.stdout().includes(`(data in ${dir})`), second.stdout());
    // stderr is a pipe of its own: its line may arrive after the listening line on stdout.
    await waitFor(() => second.stderr().includes('cut off a torn last record'), 'warning on stderr');
    assert.match(second.stderr(), new RegExp(`animals\\.log: cut off a torn last record at byte offset ${goodBytes} `));
    assert.doesNotMatch(second.stdout(), /cut off a torn/, 'the warning is not mixed into the access log');
    assert.equal((await getJson(`${url}/pets`, 'torn-test-key-0123456789')).status, 200);
    await waitFor(() => second.stdout().includes('"path":"/v1/pets"'), 'the access line on stdout');
    assert.doesNotMatch(second.stderr(), /"path":"\/v1\/pets"/);
    second.process.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  } finally {
    for (const child of children) child.process.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`no ${what} within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
