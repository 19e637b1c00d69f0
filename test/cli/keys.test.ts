// `animal-store keys` against a data directory that a running service uses at the same time.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from 'undici';
import { runCli } from '../helpers/child.js';
import { call, startServer, type TestServer } from '../helpers/server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let server: TestServer;
before(async () => {
  server = await startServer({ onDisk: true });
});
after(() => server.close());

async function keys(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = runCli(['keys', ...args, '--data-dir', server.dataDir as string]);
  const code = await child.exited;
  return { code, out: child.stdout(), err: child.stderr() };
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`${what} did not happen within 5 s`);
}

test('a created key works on the running service without a restart, and a revoked one stops working', async () => {
  const created = await keys('create', '--plan', 'pro', '--name', 'mobile app');
  assert.equal(created.code, 0, created.err);
  const key = /(ask_[0-9A-Za-z]{36})/.exec(created.out)?.[1] as string;
  const id = /Created key (key_[0-9a-f]{8})/.exec(created.out)?.[1] as string;
  assert.ok(key && id, created.out);
  const file = await readFile(join(server.dataDir as string, 'keys.json'), 'utf8');
  assert.doesNotMatch(file, new RegExp(key), 'only the hash is stored');

  const withKey = { headers: { authorization: `Bearer ${key}` } };
  await eventually(
    async () => (await call(server, 'GET', '/v1/pets', withKey)).status === 200,
    'the new key being accepted',
  );
  assert.equal((await call(server, 'GET', '/v1/pets', withKey)).headers['x-ratelimit-limit'], '300');

  const listed = await keys('list');
  assert.equal(listed.code, 0);
  assert.match(listed.out, new RegExp(`${id}\\s+mobile app\\s+pro\\s+300\\s+10000\\s+\\S+\\s+-`));
  assert.doesNotMatch(listed.out, /ask_|sha256/);

  // A connection that has used the key keeps no right to it: revoked, it is refused on that connection too.
  const connection = new Client(server.url, { pipelining: 1 });
  const statusOnConnection = async (): Promise<number> => {
    const reply = await connection.request({ method: 'GET', path: '/v1/pets', headers: withKey.headers });
    await reply.body.dump();
    return reply.statusCode;
  };
  assert.equal(await statusOnConnection(), 200);
  const revoked = await keys('revoke', id);
  assert.equal(revoked.code, 0, revoked.err);
  try {
    await eventually(
      async () => (await statusOnConnection()) === 401,
      'the revoked key being refused on a kept-alive connection',
    );
  } finally {
    await connection.close();
  }
  await eventually(
    async () => (await call(server, 'GET', '/v1/pets', withKey)).status === 401,
    'the revoked key being refused',
  );
  const json = JSON.parse((await keys('list', '--json')).out) as Array<{ id: string; revokedAt: string | null }>;
  assert.ok(json.find((entry) => entry.id === id)?.revokedAt);
});

test('enterprise keys need both custom numbers; other plans take none', async () => {
  const enterprise = await keys('create', '--plan', 'enterprise', '--per-minute', '5000', '--per-day', '2000000');
  assert.equal(enterprise.code, 0, enterprise.err);
  assert.match(enterprise.out, /enterprise: 5000\/min, 2000000\/day/);
  for (const args of [
    ['create', '--plan', 'enterprise', '--per-minute', '5000'],
    ['create', '--plan', 'pro', '--per-day', '5'],
    ['create', '--plan', 'gold'],
    ['create'],
    ['create', '--plan', 'enterprise', '--per-minute', 'x', '--per-day', '1'],
    ['revoke'],
    ['rotate'],
    ['create', '--plann', 'pro'],
    ['create', '--name'],
  ]) {
    const result = await keys(...args);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.err}`);
    assert.equal(result.err.trim().split('\n').length, 1);
  }
});

test('reloadKeys picks up the file at once (what SIGUSR2 does)', async () => {
  const created = await keys('create', '--plan', 'free');
  const key = /(ask_[0-9A-Za-z]{36})/.exec(created.out)?.[1] as string;
  await server.app.reloadKeys();
  assert.equal((await call(server, 'GET', '/v1/pets', { headers: { authorization: `Bearer ${key}` } })).status, 200);
});

test('keys --help shows every command with examples', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-keys-help-'));
  try {
    const child = runCli(['keys', '--help']);
    assert.equal(await child.exited, 0);
    assert.match(child.stdout(), /keys create --plan/);
    assert.match(child.stdout(), /Examples:/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('keys create --init makes a missing data directory, private to its owner, and names the file it wrote', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'animal-store-keys-new-'));
  try {
    const dir = join(parent, 'nested', 'data');
    const child = runCli(['keys', 'create', '--plan', 'pro', '--init', '--data-dir', dir]);
    assert.equal(await child.exited, 0, child.stderr());
    assert.match(child.stdout(), /ask_[0-9A-Za-z]+/);
    assert.ok(child.stdout().includes(join(dir, 'keys.json')), child.stdout());
    const file = JSON.parse(await readFile(join(dir, 'keys.json'), 'utf8')) as { keys: { plan: string }[] };
    assert.deepEqual(
      file.keys.map((key) => key.plan),
      ['pro'],
    );
    assert.equal((await stat(join(parent, 'nested', 'data'))).mode & 0o777, 0o700);
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});

test('keys check tells an active key from a mistyped, unknown or revoked one, without a service', async () => {
  const created = await keys('create', '--plan', 'free', '--name', 'checked');
  const key = /(ask_[0-9A-Za-z]{36})/.exec(created.out)?.[1] as string;
  const id = /Created key (key_[0-9a-f]{8})/.exec(created.out)?.[1] as string;
  const active = await keys('check', key);
  assert.equal(active.code, 0, active.err);
  assert.equal(active.out, `Key ${id} (checked) is active: free, 60/min, 1000/day.\n`);

  // One character changed in the random part: the checksum catches it before any lookup.
  const typo = `${key.slice(0, 10)}${key[10] === 'a' ? 'b' : 'a'}${key.slice(11)}`;
  const mistyped = await keys('check', typo);
  assert.equal(mistyped.code, 1);
  assert.match(mistyped.err, /^animal-store: this key fails its checksum: it was mistyped/);
  assert.equal(mistyped.out, '');

  const cutShort = await keys('check', key.slice(0, -1));
  assert.equal(cutShort.code, 1);
  assert.match(cutShort.err, /has 39 characters, not 40: it was cut short/);

  // With -, the key comes from standard input, out of the shell history and ps.
  const piped = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'src/cli.ts', 'keys', 'check', '-', '--data-dir', server.dataDir as string],
    { cwd: ROOT, input: `${key}\n`, encoding: 'utf8' },
  );
  assert.equal(piped.status, 0, piped.stderr);
  assert.match(piped.stdout, new RegExp(`^Key ${id} \\(checked\\) is active`));

  const unknown = await keys('check', 'an-operator-key-never-configured');
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /no key of the keys file in .* has this value/);
  const malformed = await keys('check', 'short');
  assert.equal(malformed.code, 1);
  assert.match(malformed.err, /not a well-formed key/);
  assert.equal((await keys('check')).code, 2, 'a missing KEY is a usage error');

  await keys('revoke', id);
  const revoked = await keys('check', key);
  assert.equal(revoked.code, 1);
  assert.match(revoked.err, new RegExp(`key ${id} was revoked at `));
});

test('a directory that holds no store is refused by every keys command (a mistyped --data-dir), exit code 1', async () => {
  const typo = await mkdtemp(join(tmpdir(), 'animal-store-keys-typo-'));
  try {
    for (const args of [['list'], ['create', '--plan', 'pro'], ['revoke', 'key_00000000']]) {
      const child = runCli(['keys', ...args, '--data-dir', typo]);
      assert.equal(await child.exited, 1, args.join(' '));
      assert.match(child.stderr(), /holds no animal store \(no keys\.json, no animals\.log\)/);
      assert.equal(child.stdout(), '');
    }
    const created = runCli(['keys', 'create', '--plan', 'pro', '--data-dir', join(typo, 'never')]);
    assert.equal(await created.exited, 1);
    await assert.rejects(stat(join(typo, 'never')), 'nothing is created without --init');
    // A usage mistake is one (exit code 2) whatever the directory holds: said before it is looked at.
    for (const [args, message] of [
      [['create', '--plan', 'gold'], /--plan must be free, pro, business or enterprise, not "gold"/],
      [['create', '--plan', 'pro', '--per-day', '5'], /--per-minute and --per-day are for --plan enterprise only/],
      [['list', 'extra'], /keys list takes no argument \(/],
      [['create', '--plan', 'pro', 'extra'], /keys create takes no argument/],
      [['revoke'], /keys revoke takes one key id/],
      [['check', 'a', 'b'], /keys check takes one key/],
    ] as const) {
      const child = runCli(['keys', ...args, '--data-dir', typo]);
      assert.equal(await child.exited, 2, args.join(' '));
      assert.match(child.stderr(), message, args.join(' '));
    }
  } finally {
    await rm(typo, { recursive: true, force: true });
  }
});

test('keys revoke: an unknown id is exit code 1 like keys check, a second revoke changes nothing, a secret is never echoed', async () => {
  const unknown = await keys('revoke', 'key_00000000');
  assert.equal(unknown.code, 1, unknown.err);
  assert.match(unknown.err, /no key has id "key_00000000"/);

  const created = await keys('create', '--plan', 'free');
  const key = /(ask_[0-9A-Za-z]{36})/.exec(created.out)?.[1] as string;
  const id = /Created key (key_[0-9a-f]{8})/.exec(created.out)?.[1] as string;
  const bySecret = await keys('revoke', key);
  assert.equal(bySecret.code, 2);
  assert.ok(!bySecret.err.includes(key) && !bySecret.out.includes(key), 'the secret is not printed back');
  assert.match(bySecret.err, /keys check -/);

  // What was typed is answered for what it is: an id that no key has (with the id it is probably a
  // slip for), or something that is no id at all (too short to be a key, so it is named).
  const slip = `${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}`;
  const near = await keys('revoke', slip);
  assert.equal(near.code, 1, near.err);
  assert.equal(near.err, `animal-store: no key has id "${slip}"; did you mean ${id}?; see animal-store keys list\n`);
  // Ids are random, so one that merely resembles the typed id by chance is not offered: three edits
  // from the typed id is no slip, two are.
  const file = join(server.dataDir as string, 'keys.json');
  const content = JSON.parse(await readFile(file, 'utf8')) as { keys: Array<Record<string, unknown>> };
  const written = (keyId: string): Record<string, unknown> => ({
    ...content.keys[0],
    id: keyId,
    name: 'hand-written',
    hash: `sha256:${keyId.slice(4).repeat(8)}`,
  });
  content.keys.push(written('key_1a2b3c4d'), written('key_1a2b30ff'));
  await writeFile(file, `${JSON.stringify(content, null, 2)}\n`);
  const typo = await keys('revoke', 'key_1a2b3cee');
  assert.equal(typo.code, 1, typo.err);
  assert.match(typo.err, /did you mean key_1a2b3c4d\?;/, 'two edits away is a slip, three are not');

  const notAnId = await keys('revoke', 'key_nothere');
  assert.equal(notAnId.code, 2, notAnId.err);
  assert.match(
    notAnId.err,
    /^animal-store: "key_nothere" is not a key id: an id is key_ and 8 hex digits, such as key_1a2b3c4d; animal-store keys list shows them/,
  );
  assert.doesNotMatch(notAnId.err, /, not a key;|the key itself/, 'it is not taken for a pasted key');

  const first = await keys('revoke', id);
  assert.equal(first.code, 0, first.err);
  assert.match(first.out, /^Revoked key /);
  const second = await keys('revoke', id);
  assert.equal(second.code, 0, second.err);
  assert.match(second.out, new RegExp(`^Key ${id} was already revoked at .*; nothing changed`));
});

test('a mistyped keys command or flag gets "did you mean"', async () => {
  const command = await keys('lst');
  assert.equal(command.code, 2);
  assert.match(command.err, /unknown command "lst"; did you mean list\?/);
  const flag = await keys('create', '--plann', 'pro');
  assert.match(flag.err, /unknown option --plann; did you mean --plan\?/);
});
