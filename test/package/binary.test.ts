// The single executable as a self-hoster runs it: built by scripts/build-binary.mjs, started with no
// Node on PATH, serving a request with the first key it printed, and managing keys.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { AnimalStoreClient } from '../../src/client/index.js';
import { type Child, waitForListening } from '../helpers/child.js';
import { createTestDatabase, postgresSkipReason } from '../helpers/postgres.js';
import { freshPrefix, redisSkipReason, TEST_REDIS_URL } from '../helpers/redis.js';
import { assertRan, type Ran, ROOT, run } from './run.js';

/** Building takes ~5 s here (most of it copying and patching a ~95 MiB node binary); past this, the machine is too slow to bother. */
const BUILD_TIMEOUT_MS = 120_000;

const toolsMissing = ['esbuild', 'postject'].find(
  (name) => !existsSync(join(ROOT, 'node_modules', name, 'package.json')),
);
const work = await mkdtemp(join(tmpdir(), 'animal-store-sea-'));
/** An empty directory as the whole PATH: the binary must not need node (or anything else) beside it. */
const emptyPath = join(work, 'empty-path');
await mkdir(emptyPath);
const binary = join(work, 'sea', process.platform === 'win32' ? 'animal-store.exe' : 'animal-store');
// Built once, before the tests are declared, so that each can be skipped with the reason.
const built =
  toolsMissing === undefined
    ? await run(process.execPath, [join(ROOT, 'scripts', 'build-binary.mjs'), '--out', join(work, 'sea')], {
        timeoutMs: BUILD_TIMEOUT_MS,
      })
    : undefined;
const skip =
  toolsMissing !== undefined
    ? `${toolsMissing} is not installed (npm ci installs it)`
    : built?.code === null
      ? `building the binary took over ${BUILD_TIMEOUT_MS / 1000} s`
      : /has no single-executable fuse/.test(built?.stderr ?? '')
        ? built?.stderr.trim()
        : undefined;

after(async () => {
  await rm(work, { recursive: true, force: true });
});

/** Starts the binary with only an empty PATH (and HOME) in its environment. */
function start(args: readonly string[]): Child {
  const child = spawn(binary, args, { env: { PATH: emptyPath, HOME: work }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { process: child, stdout: () => out, stderr: () => err, exited };
}

test("npm run build:binary's script makes one executable file", { skip }, () => {
  assertRan(built as Ran, 'scripts/build-binary.mjs');
  assert.match(built?.stdout ?? '', /built .*animal-store \([0-9.]+ MiB/);
  // By default the binary carries Node 24 (a maintained line), from the npm registry, on linux-x64.
  if (process.platform === 'linux' && process.arch === 'x64') assert.match(built?.stdout ?? '', /node v24\./);
  assert.ok(existsSync(binary));
});

test(
  'the binary serves with no Node on PATH: listening line, first key, a request, a graceful stop',
  {
    skip,
    timeout: 120_000,
  },
  async () => {
    const child = start(['serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', join(work, 'data')]);
    try {
      const apiUrl = await waitForListening(child, 20_000);
      const key = /^\s+(ask_[A-Za-z0-9]+)\s*$/m.exec(child.stdout())?.[1];
      assert.ok(key !== undefined, `no first key in: ${child.stdout()}`);
      const client = new AnimalStoreClient({ baseUrl: apiUrl, apiKey: key, retry: false });
      try {
        const pet = await client.createPet({ name: 'Bundled', categoryId: 1 });
        assert.deepEqual(pet, { id: 1, name: 'Bundled', categoryId: 1, status: 'available' });
        assert.deepEqual((await client.listPets()).pets, [pet]);
      } finally {
        await client.close();
      }
      // The /docs page's files are embedded: served with no node_modules beside the binary.
      const origin = new URL(apiUrl).origin;
      const page = await fetch(`${origin}/docs`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /swagger-ui-bundle\.js/);
      const bundle = await fetch(`${origin}/docs/swagger-ui-bundle.js`);
      assert.equal(bundle.status, 200);
      assert.ok((await bundle.arrayBuffer()).byteLength > 100_000);
      child.process.kill('SIGTERM');
      assert.equal(await child.exited, 0);
      // The storage layer (a dynamic import in src/server.ts) made it into the bundle: the log is on disk.
      assert.match(await readFile(join(work, 'data', 'animals.log'), 'utf8'), /"name":"Bundled"/);
      assert.equal(child.stderr().includes('ExperimentalWarning'), false);
    } finally {
      child.process.kill('SIGKILL');
    }
  },
);

test(
  'the binary serves one port from several worker processes (--workers 2, PostgreSQL and Redis)',
  { skip: skip ?? (await postgresSkipReason()) ?? (await redisSkipReason()), timeout: 120_000 },
  async () => {
    const database = await createTestDatabase();
    const key = 'binary-workers-key-0123456789';
    const child = spawn(
      binary,
      // The executable is its own script, so node:cluster starts each worker with its path before the command.
      ['serve', '--port', '0', '--host', '127.0.0.1', '--workers', '2', '--database-url', database.url],
      {
        env: {
          PATH: emptyPath,
          HOME: work,
          ANIMAL_STORE_KEYS: `${key}:pro`,
          ANIMAL_STORE_REDIS_URL: TEST_REDIS_URL,
          ANIMAL_STORE_REDIS_PREFIX: freshPrefix(),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const apiUrl = await waitForListening({ process: child, stdout: () => out, stderr: () => out, exited }, 30_000);
      const answer = await fetch(`${apiUrl}/pets`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(answer.status, 200, out);
      while (!/2 workers listen on one port/.test(out)) await new Promise((resolve) => setTimeout(resolve, 50));
      child.kill('SIGTERM');
      assert.equal(await exited, 0, out);
      assert.match(out, /stopped: all 2 workers drained/);
    } finally {
      child.kill('SIGKILL');
      await exited;
      await database.drop();
    }
  },
);

test('the binary creates a key with keys create, and tells its version', { skip, timeout: 120_000 }, async () => {
  const dataDir = await mkdtemp(join(work, 'keys-'));
  const created = start(['keys', 'create', '--plan', 'free', '--init', '--data-dir', dataDir]);
  assert.equal(await created.exited, 0, created.stderr());
  assert.match(created.stdout(), /Created key key_\S+ \(free: 60\/min, 1000\/day\)/);
  assert.match(created.stdout(), /^\s+ask_[A-Za-z0-9]+\s*$/m);
  assert.ok(existsSync(join(dataDir, 'keys.json')));

  const version = start(['--version']);
  assert.equal(await version.exited, 0, version.stderr());
  const { version: expected } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  assert.equal(version.stdout(), `${expected}\n`);
});

test(
  'the binary says in one line that the bench suite is not part of it (exit 2)',
  {
    skip,
    timeout: 120_000,
  },
  async () => {
    const bench = start(['bench', '--scenario', 'list']);
    assert.equal(await bench.exited, 2, bench.stderr());
    assert.match(
      bench.stderr(),
      /^animal-store: the bench suite is not part of this build: run it from a clone of the repository \(npm run bench\)\n$/,
    );
  },
);
