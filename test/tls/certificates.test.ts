// The certificate and key files: checked at start (each problem a clear error naming the file, and
// nothing created), and renewed without a restart: a pair replaced on disk is served to the next
// connection while an open HTTP/2 connection goes on with its own, and a half-written or bad pair is
// reported and kept out.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createAnimalStore } from '../../src/app/create-animal-store.js';
import type { Logger } from '../../src/logging/logger.js';
import { TLS_RELOAD_SIGNAL, TlsCertificates } from '../../src/tls/tls-certificates.js';
import { TlsFileError } from '../../src/tls/tls-pair.js';
import { http2Exchange, openHttp2, servedCertificate, sessionCertificate } from '../helpers/tls-clients.js';
import { TEST_PAIRS } from '../helpers/transport.js';

const KEY = 'tls-files-key-0123456789abc';
const FIRST = 'animal-store test certificate (first)';
const SECOND = 'animal-store test certificate (second)';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'animal-store-tls-'));
});
after(() => rm(dir, { recursive: true, force: true }));

/** A logger that keeps its lines. */
function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    error: (msg) => lines.push(`error: ${msg}`),
    warn: (msg) => lines.push(`warn: ${msg}`),
    info: (msg) => lines.push(`info: ${msg}`),
    access: undefined,
  };
}

/** Waits until `check()` holds, looking every 25 ms; fails naming `what` after a generous 20 s. */
async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`${what} did not happen`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Copies a test pair to `certPath` and `keyPath`, each written aside and renamed into place. */
async function install(pair: { cert: string; key: string }, certPath: string, keyPath: string): Promise<void> {
  await copyFile(pair.cert, `${certPath}.new`);
  await rename(`${certPath}.new`, certPath);
  await copyFile(pair.key, `${keyPath}.new`);
  await rename(`${keyPath}.new`, keyPath);
}

async function startError(options: { tlsCert?: string; tlsKey?: string; dataDir?: string }): Promise<Error> {
  const failed = await createAnimalStore({ keys: [{ key: KEY, plan: 'free' }], ...options }).then(
    async (app) => {
      await app.close();
      return undefined;
    },
    (error: unknown) => error as Error,
  );
  assert.ok(failed !== undefined, `no start with ${JSON.stringify(options)}`);
  return failed;
}

test('a missing, unreadable, foreign or mismatched file stops the start with an error naming it, and creates nothing', async () => {
  const dataDir = join(dir, 'never-created');
  const notPem = join(dir, 'not-pem.crt');
  await writeFile(notPem, 'this is not a certificate\n');
  const encrypted = join(dir, 'encrypted.key');
  // A PKCS#8 key encrypted with the passphrase "secret" (a key of no use to a service that starts alone).
  await writeFile(encrypted, await encryptedKey());
  const cases: Array<[options: { tlsCert: string; tlsKey: string }, pattern: RegExp]> = [
    [
      { tlsCert: join(dir, 'missing.crt'), tlsKey: TEST_PAIRS.first.key },
      /^cannot read the TLS certificate file .*missing\.crt: there is no such file \(ENOENT\)$/,
    ],
    [
      { tlsCert: TEST_PAIRS.first.cert, tlsKey: join(dir, 'missing.key') },
      /^cannot read the TLS key file .*missing\.key: there is no such file \(ENOENT\)$/,
    ],
    [
      { tlsCert: dir, tlsKey: TEST_PAIRS.first.key },
      /^cannot read the TLS certificate file .*: it is a directory \(EISDIR\)$/,
    ],
    [
      { tlsCert: notPem, tlsKey: TEST_PAIRS.first.key },
      /the TLS certificate file .*not-pem\.crt holds no PEM certificate/,
    ],
    [
      { tlsCert: TEST_PAIRS.first.cert, tlsKey: notPem },
      /the TLS key file .*not-pem\.crt cannot be used: it holds no readable PEM private key/,
    ],
    [{ tlsCert: TEST_PAIRS.first.cert, tlsKey: TEST_PAIRS.first.cert }, /the TLS key file .*first\.crt cannot be used/],
    [
      { tlsCert: TEST_PAIRS.first.cert, tlsKey: encrypted },
      /the TLS key file .*encrypted\.key cannot be used: it is encrypted/,
    ],
    [
      { tlsCert: TEST_PAIRS.first.cert, tlsKey: TEST_PAIRS.second.key },
      /^the TLS key file .*second\.key is not the private key of the certificate in .*first\.crt/,
    ],
  ];
  for (const [options, pattern] of cases) {
    const error = await startError({ ...options, dataDir });
    assert.ok(error instanceof TlsFileError, `${error.name}: ${error.message}`);
    assert.match(error.message, pattern);
    assert.ok(!existsSync(dataDir), 'read before the data directory is opened: nothing is left behind');
  }
  // One of the two alone is a mistake of the options, refused before any file is read.
  for (const [options, pattern] of [
    [{ tlsCert: TEST_PAIRS.first.cert }, /^option tlsCert needs tlsKey too/],
    [{ tlsKey: TEST_PAIRS.first.key }, /^option tlsKey needs tlsCert too/],
    [{ tlsCert: '', tlsKey: TEST_PAIRS.first.key }, /^option tlsCert must be the path of a PEM file$/],
  ] as const) {
    const error = await startError(options);
    assert.ok(error instanceof TypeError, error.message);
    assert.match(error.message, pattern);
  }
});

/** A private key encrypted with a passphrase, made by node:crypto. */
async function encryptedKey(): Promise<string> {
  const { generateKeyPairSync } = await import('node:crypto');
  return generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'secret' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;
}

/** A service on the first test pair, copied into a folder of its own (`name`) where the test can replace it. */
async function serveFirstPair(name: string): Promise<{
  certPath: string;
  keyPath: string;
  logger: ReturnType<typeof recordingLogger>;
  app: Awaited<ReturnType<typeof createAnimalStore>>;
}> {
  const live = join(dir, name);
  await mkdir(live);
  const certPath = join(live, 'cert.pem');
  const keyPath = join(live, 'key.pem');
  await install(TEST_PAIRS.first, certPath, keyPath);
  const logger = recordingLogger();
  const app = await createAnimalStore({
    tlsCert: certPath,
    tlsKey: keyPath,
    keys: [{ key: KEY, plan: 'free' }],
    logger,
  });
  return { certPath, keyPath, logger, app };
}

test('a pair replaced on disk is served to the next connection without a restart, while an open HTTP/2 connection keeps working', async () => {
  const { certPath, keyPath, logger, app } = await serveFirstPair('replaced');
  try {
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    const open = await openHttp2(url);
    const list = { ':method': 'GET', ':path': '/v1/pets', authorization: `Bearer ${KEY}` };
    assert.equal(sessionCertificate(open), FIRST);
    assert.equal((await http2Exchange(open, list)).status, 200);

    await install(TEST_PAIRS.second, certPath, keyPath);
    await eventually(async () => (await servedCertificate(url)).subject === SECOND, 'the new certificate served');
    assert.equal((await servedCertificate(url, ['http/1.1'])).subject, SECOND, 'over HTTP/1.1 too');
    assert.ok(logger.lines.some((line) => line.startsWith(`info: TLS certificate reloaded (CN=${SECOND}`)));
    // The connection opened before goes on, with the certificate it was opened with.
    assert.equal((await http2Exchange(open, list)).status, 200);
    assert.equal(sessionCertificate(open), FIRST);
    open.close();
    assert.equal(await app.reloadTls(), 'unchanged');
  } finally {
    await app.close();
  }
});

test('a half-written pair is reported once and kept out until its other half arrives', async () => {
  const { certPath, keyPath, logger, app } = await serveFirstPair('half');
  try {
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    // The certificate alone: it does not go with the key in place.
    await copyFile(TEST_PAIRS.second.cert, certPath);
    const halfReported = (line: string): boolean =>
      line.startsWith('warn: TLS certificate not reloaded, the one in force is kept:') &&
      line.includes('is not the private key of the certificate');
    await eventually(() => logger.lines.some(halfReported), 'the half-written pair reported');
    assert.equal((await servedCertificate(url)).subject, FIRST, 'the pair in force is kept');
    await assert.rejects(app.reloadTls(), TlsFileError, 'an explicit reload says why too');
    // The other half.
    await copyFile(TEST_PAIRS.second.key, keyPath);
    await eventually(async () => (await servedCertificate(url)).subject === SECOND, 'the whole new pair served');
    assert.equal(logger.lines.filter(halfReported).length, 1, 'reported once, not at every look');
  } finally {
    await app.close();
  }
});

test('files whose directory can no longer be watched are reported with the signal that still reloads them', async () => {
  const gone = join(dir, 'gone');
  await mkdir(gone);
  await install(TEST_PAIRS.first, join(gone, 'cert.pem'), join(gone, 'key.pem'));
  const logger = recordingLogger();
  const certificates = await TlsCertificates.open(
    { certPath: join(gone, 'cert.pem'), keyPath: join(gone, 'key.pem') },
    logger,
  );
  await rm(gone, { recursive: true });
  certificates.watch();
  certificates.close();
  const reported = logger.lines.filter((line) => line.startsWith('warn: changes to the TLS files in'));
  assert.equal(reported.length, 1, logger.lines.join('\n'));
  assert.match(reported[0] as string, new RegExp(`send ${TLS_RELOAD_SIGNAL} to animal-store serve`));
  assert.equal(TLS_RELOAD_SIGNAL, 'SIGUSR2');
});

test('a certificate out of its dates is served, with a warning saying so', async () => {
  const logger = recordingLogger();
  const pair = { certPath: TEST_PAIRS.first.cert, keyPath: TEST_PAIRS.first.key };
  await TlsCertificates.open(pair, logger, () => Date.UTC(2101, 0, 1));
  await TlsCertificates.open(pair, logger, () => Date.UTC(1999, 0, 1));
  assert.deepEqual(
    logger.lines.map((line) => line.replace(/ in \S+first\.crt/, ' in first.crt')),
    [
      'warn: the TLS certificate in first.crt is served, but it expired on 2100-01-01T00:00:00.000Z, so clients will refuse it',
      'warn: the TLS certificate in first.crt is served, but it is valid only from 2000-01-01T00:00:00.000Z, so clients will refuse it until then',
    ],
  );
});
