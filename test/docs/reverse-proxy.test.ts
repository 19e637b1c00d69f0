// The reverse-proxy set-up the README documents (docs/nginx.conf), run for real: Debian's nginx in front
// of the service. With --trust-proxy each client's failed authentications count against its own address
// (the X-Forwarded-For entry nginx adds, never one the client made up); without it, every client behind
// the proxy shares one budget. Skipped with one line where nginx is absent; a failure instead when
// ANIMAL_STORE_TEST_SERVICES=required (CI installs nginx).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Agent, request } from 'undici';
import { freePort } from '../helpers/ports.js';
import { startServer, TEST_KEY } from '../helpers/server.js';

const NGINX = '/usr/sbin/nginx';
const present = existsSync(NGINX);
if (!present && process.env.ANIMAL_STORE_TEST_SERVICES === 'required')
  throw new Error(`${NGINX} is missing and ANIMAL_STORE_TEST_SERVICES=required`);
const skip = present ? false : `no nginx at ${NGINX} (apt-get install -y nginx-light)`;

/** nginx with the documented server block, listening on a free port in front of `upstreamPort`. */
async function startNginx(upstreamPort: number): Promise<{ port: number; stop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-nginx-'));
  const port = await freePort();
  const documented = await readFile(new URL('../../docs/nginx.conf', import.meta.url), 'utf8');
  const block = documented
    .replace('server 127.0.0.1:8080;', `server 127.0.0.1:${upstreamPort};`)
    .replace('listen 80;', `listen 127.0.0.1:${port};`);
  assert.ok(
    block.includes(`:${upstreamPort};`) && block.includes(`:${port};`),
    'the documented config has its placeholders',
  );
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) await mkdir(join(dir, temp));
  const paths = ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => {
    const directive = name === 'body' ? 'client_body_temp_path' : `${name}_temp_path`;
    return `${directive} ${join(dir, name)};`;
  });
  await writeFile(
    join(dir, 'nginx.conf'),
    `pid ${join(dir, 'nginx.pid')};\nerror_log ${join(dir, 'error.log')};\nevents {}\nhttp {\naccess_log off;\n${paths.join('\n')}\n${block}\n}\n`,
  );
  const child: ChildProcess = spawn(
    NGINX,
    ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off; master_process off;'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await request(`http://127.0.0.1:${port}/healthz`).then(
      async (response) => (await response.body.text(), true),
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) assert.fail(`nginx did not start: ${stderr}`);
    await new Promise((done) => setTimeout(done, 50));
  }
  return {
    port,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((done) => child.once('exit', done));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A client connecting from `localAddress` (127.0.0.x: every address of 127/8 is this machine's). */
function clientFrom(localAddress: string, port: number) {
  const agent = new Agent({ localAddress });
  return {
    async get(key: string, extra: Record<string, string> = {}): Promise<{ status: number; code?: string }> {
      const response = await request(`http://127.0.0.1:${port}/v1/pets`, {
        headers: { authorization: `Bearer ${key}`, ...extra },
        dispatcher: agent,
      });
      const body = (await response.body.json()) as { code?: string };
      return { status: response.statusCode, code: Array.isArray(body) ? undefined : body.code };
    },
    close: () => agent.close(),
  };
}

const WRONG_KEY = 'a-wrong-key-0123456789abcdef';

for (const trustProxy of [true, false]) {
  test(
    trustProxy
      ? 'with --trust-proxy, a client that spends its failed-auth budget is blocked alone, whatever X-Forwarded-For it sends'
      : 'without --trust-proxy, every client behind the proxy shares one failed-auth budget',
    { skip, timeout: 120_000 },
    async () => {
      const service = await startServer({ trustProxy, limits: { failedAuthCapacity: 3 } });
      const nginx = await startNginx(Number(new URL(service.url).port));
      const guesser = clientFrom('127.0.0.2', nginx.port);
      const neighbour = clientFrom('127.0.0.3', nginx.port);
      try {
        for (let attempt = 0; attempt < 3; attempt++) assert.equal((await guesser.get(WRONG_KEY)).status, 401);
        assert.deepEqual(await guesser.get(TEST_KEY), { status: 429, code: 'rate_limited' }, 'the guesser is blocked');
        assert.deepEqual(
          await guesser.get(TEST_KEY, { 'x-forwarded-for': '198.51.100.7' }),
          { status: 429, code: 'rate_limited' },
          'a made-up X-Forwarded-For does not get around the block',
        );
        const other = await neighbour.get(TEST_KEY);
        if (trustProxy) assert.equal(other.status, 200, `another client is not blocked: ${JSON.stringify(other)}`);
        else assert.deepEqual(other, { status: 429, code: 'rate_limited' }, 'behind the proxy, all share the block');
      } finally {
        await guesser.close();
        await neighbour.close();
        await nginx.stop();
        await service.close();
      }
    },
  );
}
