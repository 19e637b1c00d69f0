// The package as a consumer gets it: `npm run build`, `npm pack`, install the tarball into a fresh
// project, then import both entry points, serve a request, type-check against the .d.ts, and run the bin.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { assertRan, npmMissing, ROOT, run } from './run.js';

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
    const packed = await run('npm', ['pack', '--json', '--pack-destination', work]);
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
    'dist/storage/index.js',
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
    timeout: 30_000,
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

test('the installed typings type-check a consumer under NodeNext resolution', { skip, timeout: 60_000 }, async () => {
  await writeFile(
    join(consumer, 'check.ts'),
    `
import { createAnimalStore, type Pet, type Order } from 'animal-store';
import { AnimalStoreClient, AnimalStoreError, type PetPage } from 'animal-store/client';
const app = await createAnimalStore({ basePath: '/v1' });
const client = new AnimalStoreClient({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k', retry: { deadlineMs: 1000 } });
const page: PetPage = await client.listPets({ status: 'sold' });
const first: Pet | undefined = page.pets[0];
const order: Order = await client.updateOrder(1, 'delivered');
// @ts-expect-error: a status outside the schema's enum is refused at compile time.
await client.listPets({ status: 'lost' });
const made: Pet = await app.pets.create({ name: 'Typed', categoryId: 1 });
const sold: Pet[] = (await app.pets.list({ status: 'sold', limit: 5 })).pets;
// @ts-expect-error: the embedded store takes the same typed input as the API.
await app.pets.create({ name: 'Untyped', categoryId: '1' });
export const used = [app.handler, first, order, AnimalStoreError, made, sold];
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

test('the installed bin answers --version with the package version', { skip, timeout: 20_000 }, async () => {
  const bin = join(consumer, 'node_modules', '.bin', 'animal-store');
  assert.ok((await readdir(join(consumer, 'node_modules', '.bin'))).includes('animal-store'));
  const ran = await run(bin, ['--version'], { cwd: consumer });
  assertRan(ran, 'animal-store --version');
  const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  assert.equal(ran.stdout, `${version}\n`);
});
