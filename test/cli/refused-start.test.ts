// A start refused because a backing server cannot be reached or refuses: one line that says which and
// what to do, exit code 1, and the data directory as it was: a new one is never created, an existing
// one is left untouched (not a file added, removed or changed, not even the lock taken and released).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createAnimalStore } from '../../src/app/create-animal-store.js';
import { runCli } from '../helpers/child.js';
import { ADMIN_URL, databaseUrl, postgresSkipReason } from '../helpers/postgres.js';

const KEY = 'refused-start-key-0123456789';
const UNREACHABLE_REDIS = 'redis://127.0.0.1:1';
const UNREACHABLE_POSTGRES = 'postgres://someone@127.0.0.1:1/animals';
const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-refused-'));
  dirs.push(dir);
  return dir;
}

/** Everything about a directory a start could change: its own times, and each file's name, size, times and bytes. */
async function snapshot(dir: string): Promise<string> {
  const own = await stat(dir);
  const entries = await Promise.all(
    (await readdir(dir)).sort().map(async (name) => {
      const info = await stat(join(dir, name));
      const bytes = info.isFile() ? (await readFile(join(dir, name))).toString('base64') : '(directory)';
      return `${name} ${info.size} ${info.mtimeMs} ${info.ctimeMs} ${bytes}`;
    }),
  );
  return [`. ${own.mtimeMs} ${own.ctimeMs}`, ...entries].join('\n');
}

/** Runs `serve` with `args`; asserts exit code 1 and one line on stderr; resolves with that line. */
async function refusedStart(args: string[]): Promise<string> {
  const child = runCli(['serve', '--port', '0', ...args], { ANIMAL_STORE_KEYS: `${KEY}:free` });
  assert.equal(await child.exited, 1, child.stderr());
  const lines = child.stderr().trim().split('\n');
  assert.equal(lines.length, 1, child.stderr());
  return lines[0] as string;
}

test('Redis unreachable: a new data directory is not created, an empty one stays empty, a used one is untouched', async () => {
  const parent = await tempDir();
  const fresh = join(parent, 'data');
  assert.match(await refusedStart(['--data-dir', fresh, '--redis-url', UNREACHABLE_REDIS]), /cannot reach Redis at/);
  assert.ok(!existsSync(fresh), 'no data directory was created');

  const empty = join(parent, 'empty');
  await mkdir(empty);
  await refusedStart(['--data-dir', empty, '--redis-url', UNREACHABLE_REDIS]);
  assert.deepEqual(await readdir(empty), [], 'the empty directory stays empty');

  // A directory a service has used: its journal, keys, cursor secret and limiter state.
  const used = join(parent, 'used');
  const app = await createAnimalStore({ dataDir: used, createFirstKey: true, logLevel: 'silent' });
  await app.pets.create({ name: 'Rex', categoryId: 1 });
  await app.close();
  const before = await snapshot(used);
  assert.match(before, /keys\.json/);
  await refusedStart(['--data-dir', used, '--redis-url', UNREACHABLE_REDIS]);
  assert.equal(await snapshot(used), before, 'the used directory is untouched');
});

test('PostgreSQL unreachable: a named data directory (for the limiter state) is not created', async () => {
  const fresh = join(await tempDir(), 'data');
  assert.match(
    await refusedStart(['--data-dir', fresh, '--database-url', UNREACHABLE_POSTGRES]),
    /^animal-store: cannot reach PostgreSQL at postgres:\/\/127\.0\.0\.1:1\/animals: .*ECONNREFUSED/,
  );
  assert.ok(!existsSync(fresh));
  // And both named, both away: the first one tried is named, nothing is created.
  assert.match(
    await refusedStart(['--data-dir', fresh, '--database-url', UNREACHABLE_POSTGRES, '--redis-url', UNREACHABLE_REDIS]),
    /cannot reach (Redis|PostgreSQL) at/,
  );
  assert.ok(!existsSync(fresh));
});

const postgresSkip = await postgresSkipReason();

test(
  'PostgreSQL that answers "no such database" or refuses the login is named as such, with what to do',
  { skip: postgresSkip },
  async () => {
    const name = `animal_store_missing_${process.pid}`;
    const missing = await refusedStart(['--database-url', databaseUrl(name)]);
    const admin = new URL(ADMIN_URL);
    const user = admin.username === '' ? '' : ` -U ${decodeURIComponent(admin.username)}`;
    const port = admin.port === '' ? '' : ` -p ${admin.port}`;
    assert.equal(
      missing,
      `animal-store: PostgreSQL at postgres://${admin.hostname}:${admin.port || '5432'}/${name} answered, but database "${name}" ` +
        `does not exist; create it (createdb -h ${admin.hostname}${port}${user} ${name}) or name another database in the database URL`,
    );
    assert.doesNotMatch(missing, /cannot reach/);

    const noRole = new URL(ADMIN_URL);
    noRole.username = `nobody_${process.pid}`;
    noRole.password = 'secret-password';
    const refused = await refusedStart(['--database-url', noRole.toString()]);
    assert.match(
      refused,
      /^animal-store: PostgreSQL at postgres:\/\/\S+ refused the login: (role "nobody_\d+" does not exist|password authentication failed for user "nobody_\d+"|.*pg_hba\.conf.*); check the user and password in the database URL \(and pg_hba\.conf on the server\)$/,
    );
    assert.doesNotMatch(refused, /secret-password/);
  },
);
