// The package as a consumer gets it: `npm run build`, `npm pack`, install the tarball into a fresh
// project, then import both entry points, serve a request and the /docs page, type-check against the
// .d.ts, and run the bin (through npx too, stopped as a supervisor stops it). The consumer's lock shows
// that installing runs no install-time script (Swagger UI's files are built in, not a dependency).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
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
import { assertRan, childEnv, npmMissing, ROOT, run } from './run.js';

const skip = npmMissing();
let work = '';
let consumer = '';
let tarball = '';

before(
  async () => {
    if (skip !== undefined) return;
    work = await mkdtemp(join(tmpdir(), 'animal-store-pack-'));
    consumer = join(work, 'consumer');
    assertRan(await run('npm', ['run', 'build'], { timeoutMs: 90_000 }), 'npm run build');
    // Built just above: without --ignore-scripts, npm pack would run `prepare` and build it all again.
    const packed = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work]);
    assertRan(packed, 'npm pack');
    const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
    tarball = join(work, filename);
    await mkdir(consumer);
    await writeFile(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', version: '0.0.0', private: true, type: 'module' }),
    );
    // The cache already holds typebox and undici (the project installed them); go to the registry only if it does not.
    let installed = await run('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], {
      cwd: consumer,
      timeoutMs: 60_000,
    });
    if (installed.code !== 0)
      installed = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], {
        cwd: consumer,
        timeoutMs: 90_000,
      });
    assertRan(installed, 'npm install of the tarball');
  },
  { timeout: 240_000 },
);

after(async () => {
  if (work !== '') await rm(work, { recursive: true, force: true });
});

test('the tarball holds the built package and no sources, tests or binaries', { skip }, async () => {
  const listed = await run('tar', ['-tzf', tarball]);
  assertRan(listed, 'tar -t');
  const files = listed.stdout
    .trim()
    .split('\n')
    .map((line) => line.replace(/^package\//, ''));
  for (const needed of [
    'package.json',
    'README.md',
    'dist/index.js',
    'dist/index.d.ts',
    'dist/client/index.js',
    'dist/client/index.d.ts',
    'dist/cli.js',
    'dist/journal/open-journal.js',
    // The /docs page's files, built into the package (no swagger-ui-dist at run time), with their licenses.
    'dist/http/docs/assets/swagger-ui-bundle.js',
    'dist/http/docs/assets/swagger-ui.css',
    'dist/http/docs/assets/favicon-32x32.png',
    'dist/http/docs/assets/LICENSE',
    'dist/http/docs/assets/NOTICE',
  ]) {
    assert.ok(files.includes(needed), `${needed} is missing from the tarball`);
  }
  assert.deepEqual(
    files.filter(
      (file) =>
        /^(src|test|bench|scripts|node_modules|dist\/sea)\//.test(file) ||
        (file.endsWith('.ts') && !file.endsWith('.d.ts')),
    ),
    [],
  );
});

test(
  'a consumer imports animal-store and animal-store/client, serves a request and reads it back',
  {
    skip,
    timeout: 120_000,
  },
  async () => {
    await writeFile(
      join(consumer, 'serve.mjs'),
      `
import { createAnimalStore } from 'animal-store';
import { AnimalStoreClient } from 'animal-store/client';
const key = 'consumer-key-0123456789';
const app = await createAnimalStore({ keys: [{ key, plan: 'pro' }], logLevel: 'silent' });
const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
const client = new AnimalStoreClient({ baseUrl: url + '/v1', apiKey: key });
try {
  const pet = await client.createPet({ name: 'Packed', categoryId: 4 });
  const page = await client.listPets();
  const health = await fetch(url + '/healthz').then((response) => response.json());
  console.log(JSON.stringify({ pet, page, health }));
} finally {
  await client.close();
  await app.close();
}
`,
    );
    const ran = await run(process.execPath, ['serve.mjs'], { cwd: consumer, timeoutMs: 20_000 });
    assertRan(ran, 'node serve.mjs');
    const { pet, page, health } = JSON.parse(ran.stdout) as {
      pet: unknown;
      page: { pets: unknown[]; total: number };
      health: unknown;
    };
    assert.deepEqual(pet, { id: 1, name: 'Packed', categoryId: 4, status: 'available' });
    assert.deepEqual(page, { pets: [pet], total: 1 });
    assert.deepEqual(health, { status: 'ok' });
  },
);

test(
  "installing the package runs no install-time script: the consumer's lock marks none, and holds no swagger-ui-dist or @scarf/scarf",
  { skip },
  async () => {
    const lock = JSON.parse(await readFile(join(consumer, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const paths = Object.keys(lock.packages);
    assert.ok(paths.includes('node_modules/animal-store'), paths.join('\n'));
    assert.deepEqual(
      paths.filter((path) => lock.packages[path]?.hasInstallScript === true),
      [],
    );
    assert.deepEqual(
      paths.filter((path) => /(^|\/)node_modules\/(swagger-ui-dist|@scarf\/scarf)$/.test(path)),
      [],
    );
  },
);

test(
  "the installed package serves /docs from its own copy of Swagger UI's files",
  { skip, timeout: 120_000 },
  async () => {
    assert.ok(!existsSync(join(consumer, 'node_modules', 'swagger-ui-dist')), 'swagger-ui-dist is not installed');
    await writeFile(
      join(consumer, 'docs.mjs'),
      `
import { createAnimalStore } from 'animal-store';
const app = await createAnimalStore({ logLevel: 'silent' });
const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
try {
  const page = await fetch(url + '/docs');
  const files = {};
  for (const name of ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png']) {
    const response = await fetch(url + '/docs/' + name);
    files[name] = { status: response.status, bytes: Buffer.from(await response.arrayBuffer()).toString('base64') };
  }
  console.log(JSON.stringify({ page: { status: page.status, text: await page.text() }, files }));
} finally {
  await app.close();
}
`,
    );
    const ran = await run(process.execPath, ['docs.mjs'], { cwd: consumer, timeoutMs: 20_000 });
    assertRan(ran, 'node docs.mjs');
    const { page, files } = JSON.parse(ran.stdout) as {
      page: { status: number; text: string };
      files: Record<string, { status: number; bytes: string }>;
    };
    assert.equal(page.status, 200);
    assert.match(page.text, /\/docs\/swagger-ui-bundle\.js/);
    const assets = join(consumer, 'node_modules', 'animal-store', 'dist', 'http', 'docs', 'assets');
    for (const [name, file] of Object.entries(files)) {
      assert.equal(file.status, 200, name);
      assert.ok(Buffer.from(file.bytes, 'base64').equals(await readFile(join(assets, name))), `${name} as installed`);
    }
  },
);

test(
  "npx animal-store serve in the consumer: SIGTERM to npx's pid stops the service gracefully, and no process is left",
  {
    skip: skip ?? (process.platform === 'win32' ? 'npx runs commands with cmd.exe on Windows' : false),
    timeout: 120_000,
  },
  async () => {
    const dataDir = join(work, 'npx-data');
    const npx = startSupervised(
      'npx',
      ['--no-install', 'animal-store', 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir],
      { cwd: consumer, env: childEnv() },
    );
    let service: number | undefined;
    try {
      const port = await waitForListeningPort(npx, 60_000);
      service = await lockOwner(dataDir);
      assert.notEqual(service, npx.process.pid, 'the service runs in a process of its own under npx');
      npx.process.kill('SIGTERM');
      await within(npx.exited, 30_000, () => `npx to exit after SIGTERM:\n${npx.output()}`);
      const pid = service;
      // npx's shell dies of the SIGTERM npm relays to it; the service notices its parent is gone.
      await waitFor(
        () => (isRunning(pid) ? undefined : true),
        30_000,
        () => `the service (pid ${pid}) to exit after npx did:\n${npx.output()}`,
      );
      assert.match(npx.output(), /animal-store stopped: 0 requests drained, data saved/);
      assert.ok(!existsSync(join(dataDir, 'LOCK')), 'the lock is released');
      assert.ok(await portFree(port), 'the port is free');
    } finally {
      killGroup(npx);
      if (service !== undefined && isRunning(service)) process.kill(service, 'SIGKILL');
    }
  },
);

test('the installed typings type-check a consumer under NodeNext resolution', { skip, timeout: 120_000 }, async () => {
  await writeFile(
    join(consumer, 'check.ts'),
    `
import { createAnimalStore, type Pet, type Order } from 'animal-store';
import {
  AnimalStoreClient,
  AnimalStoreError,
  type Event,
  type PetPage,
  type Webhook,
  type WebhookWithSecret,
} from 'animal-store/client';
const app = await createAnimalStore({ basePath: '/v1' });
const client = new AnimalStoreClient({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k', retry: { deadlineMs: 1000 } });
const page: PetPage = await client.listPets({ status: 'sold' });
const first: Pet | undefined = page.pets[0];
const order: Order = await client.updateOrder(1, 'delivered');
// @ts-expect-error: a status outside the schema's enum is refused at compile time.
await client.listPets({ status: 'lost' });
const hook: WebhookWithSecret = await client.createWebhook({ url: 'https://hooks.example.com/x', events: ['pet.created'] });
const hooks: Webhook[] = (await client.listWebhooks({ limit: 5 })).webhooks;
const events: Event[] = (await client.listEvents({ type: 'order.updated' })).events;
const gone: void = await client.deleteWebhook(hook.id);
// @ts-expect-error: an event type outside the schema's enum is refused at compile time.
await client.createWebhook({ url: 'https://hooks.example.com/x', events: ['pet.sold'] });
const made: Pet = await app.pets.create({ name: 'Typed', categoryId: 1 });
const sold: Pet[] = (await app.pets.list({ status: 'sold', limit: 5 })).pets;
// @ts-expect-error: the embedded store takes the same typed input as the API.
await app.pets.create({ name: 'Untyped', categoryId: '1' });
export const used = [app.handler, first, order, AnimalStoreError, made, sold, hook.secret, hooks, events, gone];
`,
  );
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const ran = await run(
    process.execPath,
    [
      tsc,
      '--noEmit',
      '--strict',
      '--skipLibCheck',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--typeRoots',
      join(ROOT, 'node_modules', '@types'),
      '--types',
      'node',
      'check.ts',
    ],
    { cwd: consumer, timeoutMs: 50_000 },
  );
  assertRan(ran, 'tsc on the consumer');
});

test('the installed bin answers --version with the package version', { skip, timeout: 120_000 }, async () => {
  const bin = join(consumer, 'node_modules', '.bin', 'animal-store');
  assert.ok((await readdir(join(consumer, 'node_modules', '.bin'))).includes('animal-store'));
  const ran = await run(bin, ['--version'], { cwd: consumer });
  assertRan(ran, 'animal-store --version');
  const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  assert.equal(ran.stdout, `${version}\n`);
});
