// `animal-store serve --tls-cert … --tls-key …` as a real process: a bad pair stops the start in one line
// naming the file (exit 2), with --workers too; SIGUSR2 reloads the files, also a change the watch
// cannot see (a directory's link moved), and keeps the pair in force when the new one is bad; and with
// --workers on PostgreSQL and Redis, SIGUSR2 to the primary reaches every worker.
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, rename, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { serveOptions } from '../../src/cli/serve.js';
import { runCli, waitForListening, waitForMatch } from '../helpers/child.js';
import { freePort } from '../helpers/ports.js';
import { createTestDatabase, postgresSkipReason } from '../helpers/postgres.js';
import { freshPrefix, redisSkipReason, TEST_REDIS_URL } from '../helpers/redis.js';
import { http2Exchange, openHttp2, servedCertificate } from '../helpers/tls-clients.js';
import { TEST_PAIRS } from '../helpers/transport.js';

const KEY = 'serve-tls-key-0123456789abc';
const FIRST = 'animal-store test certificate (first)';
const SECOND = 'animal-store test certificate (second)';
const RELOADED = /TLS files read on SIGUSR2: new connections get the new certificate/g;

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'animal-store-serve-tls-'));
});
after(() => rm(dir, { recursive: true, force: true }));

/** Runs `serve ARGS` expecting a refusal: exit 2 and one line on stderr, which it returns. */
async function refused(args: string[]): Promise<string> {
  const child = runCli(['serve', '--port', '0', '--data-dir', join(dir, 'never'), ...args]);
  assert.equal(await child.exited, 2, child.stderr());
  const lines = child.stderr().trimEnd().split('\n');
  assert.equal(lines.length, 1, child.stderr());
  return lines[0] as string;
}

test('a bad certificate stops `serve` in one line naming the file, exit 2, with --workers too', async () => {
  const missing = join(dir, 'missing.pem');
  assert.match(
    await refused(['--tls-cert', missing, '--tls-key', TEST_PAIRS.first.key]),
    /^animal-store: cannot read the TLS certificate file .*missing\.pem: there is no such file \(ENOENT\)$/,
  );
  // The primary checks the pair before it forks: no database or Redis is reached for this.
  assert.match(
    await refused([
      '--workers',
      '2',
      '--database-url',
      'postgres://nobody@127.0.0.1:1/none',
      '--redis-url',
      'redis://127.0.0.1:1',
      '--tls-cert',
      missing,
      '--tls-key',
      TEST_PAIRS.first.key,
    ]),
    /^animal-store: cannot read the TLS certificate file .*missing\.pem/,
  );
});

test('the TLS flags and variables are read as the others: paths, and --hsts-max-age in whole seconds from 0', () => {
  const options = serveOptions(['--tls-cert', 'cert.pem', '--hsts-max-age', '0'], { ANIMAL_STORE_TLS_KEY: 'key.pem' });
  assert.equal(options.tlsCert, 'cert.pem');
  assert.equal(options.tlsKey, 'key.pem');
  assert.equal(options.hstsMaxAge, 0);
  assert.equal(serveOptions([], { ANIMAL_STORE_HSTS_MAX_AGE: '600' }).hstsMaxAge, 600);
  for (const bad of ['-1', 'a year', '1.5', '315360001'])
    assert.throws(
      () => serveOptions([`--hsts-max-age=${bad}`], {}),
      new RegExp(`^TypeError: --hsts-max-age must be a whole number of seconds from 0 to 315360000, not "${bad}"$`),
    );
  assert.throws(() => serveOptions(['--tls-cert='], {}), /^TypeError: --tls-cert must not be empty$/);
});

/** dir/NAME holding a test pair as cert.pem and key.pem. */
async function generation(name: string, pair: { cert: string; key: string }): Promise<string> {
  const path = join(dir, name);
  await mkdir(path);
  await copyFile(pair.cert, join(path, 'cert.pem'));
  await copyFile(pair.key, join(path, 'key.pem'));
  return path;
}

/** Points the link `live` at `target` in one rename, as certbot and Kubernetes move theirs. */
async function pointLive(live: string, target: string): Promise<void> {
  await symlink(target, `${live}.new`);
  await rename(`${live}.new`, live);
}

test('SIGUSR2 reloads the TLS files, even a change the watch cannot see, and keeps the pair in force when the new one is bad', async (t) => {
  if (process.platform === 'win32') return t.skip('signals are POSIX');
  const first = await generation('gen-first', TEST_PAIRS.first);
  const second = await generation('gen-second', TEST_PAIRS.second);
  const mismatched = await generation('gen-mismatched', { cert: TEST_PAIRS.first.cert, key: TEST_PAIRS.second.key });
  // The files are reached through a link to their directory: moving the link changes what the paths
  // name without any change in the directories watched (those of the files).
  const live = join(dir, 'live');
  await symlink(first, live);
  const child = runCli(
    [
      'serve',
      '--port',
      '0',
      '--data-dir',
      join(dir, 'data'),
      '--tls-cert',
      join(live, 'cert.pem'),
      '--tls-key',
      join(live, 'key.pem'),
    ],
    { ANIMAL_STORE_KEYS: `${KEY}:free` },
  );
  try {
    const apiUrl = await waitForListening(child);
    assert.match(apiUrl, /^https:\/\/127\.0\.0\.1:\d+\/v1$/);
    assert.equal((await servedCertificate(apiUrl)).subject, FIRST);

    await pointLive(live, second);
    child.process.kill('SIGUSR2');
    await waitForMatch(child.stdout, RELOADED, { what: 'the reload on SIGUSR2' });
    assert.equal((await servedCertificate(apiUrl)).subject, SECOND);

    await pointLive(live, mismatched);
    child.process.kill('SIGUSR2');
    await waitForMatch(
      child.stderr,
      /TLS certificate not reloaded on SIGUSR2, the one in force is kept: .*not the private key/,
      {
        what: 'the bad pair refused',
      },
    );
    assert.equal((await servedCertificate(apiUrl)).subject, SECOND);
    // The keys file is reloaded on the same signal, as before.
    assert.match(child.stdout(), /keys file reloaded on SIGUSR2/);
  } finally {
    child.process.kill('SIGTERM');
    await child.exited;
  }
});

const servicesSkip = (await postgresSkipReason()) ?? (await redisSkipReason());

test(
  '--workers 2 serve TLS and HTTP/2 on one port, and SIGUSR2 to the primary reloads the certificate in every worker',
  { skip: servicesSkip, timeout: 120_000 },
  async () => {
    const database = await createTestDatabase();
    const files = join(dir, 'workers');
    await mkdir(files);
    const certPath = join(files, 'cert.pem');
    const keyPath = join(files, 'key.pem');
    await copyFile(TEST_PAIRS.first.cert, certPath);
    await copyFile(TEST_PAIRS.first.key, keyPath);
    const child = runCli(
      [
        'serve',
        '--workers',
        '2',
        '--port',
        String(await freePort()),
        '--database-url',
        database.url,
        '--redis-url',
        TEST_REDIS_URL,
        '--redis-prefix',
        freshPrefix(),
        '--tls-cert',
        certPath,
        '--tls-key',
        keyPath,
      ],
      { ANIMAL_STORE_KEYS: `${KEY}:enterprise:100000:1000000` },
    );
    const output = (): string => child.stdout() + child.stderr();
    try {
      const [, apiUrl] = await waitForMatch(child.stdout, /animal-store listening on (https:\/\/\S+)/);
      await waitForMatch(output, /2 workers listen on one port/);
      const session = await openHttp2(apiUrl as string);
      const answer = await http2Exchange(session, {
        ':method': 'GET',
        ':path': '/v1/pets',
        authorization: `Bearer ${KEY}`,
      });
      session.close();
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['strict-transport-security'], 'max-age=31536000');

      // Replaced in place, then the signal: each worker reads the files (the watch of either may have
      // been first; then the signal finds them unchanged, which the count below allows for).
      await copyFile(TEST_PAIRS.second.cert, certPath);
      await copyFile(TEST_PAIRS.second.key, keyPath);
      child.process.kill('SIGUSR2');
      await waitForMatch(output, /(TLS files read on SIGUSR2[^\n]*\n[\s\S]*){2}/, {
        what: 'both workers read the files on SIGUSR2',
      });
      // Two workers, each with the new pair in force: new connections, dealt to both, all get it.
      const reloads = (output().match(/TLS certificate reloaded \(CN=animal-store test certificate \(second\)/g) ?? [])
        .length;
      assert.equal(reloads, 2, output());
      for (let index = 0; index < 6; index++) assert.equal((await servedCertificate(apiUrl as string)).subject, SECOND);
      assert.ok(child.process.exitCode === null, 'the primary is still running: SIGUSR2 does not stop it');
    } finally {
      child.process.kill('SIGTERM');
      await child.exited;
      await database.drop();
    }
  },
);
