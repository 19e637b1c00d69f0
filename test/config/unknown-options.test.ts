// createAnimalStore's options: a name it does not know is a programmer's slip, so
// it throws a TypeError naming it and the closest options, instead of being silently ignored.
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { type AnimalStoreOptions, createAnimalStore } from '../../src/app/create-animal-store.js';
import { resolveSettings } from '../../src/config/settings.js';
import { ManualClock } from '../../src/core/clock.js';
import { QUIET_LOGGER } from '../../src/logging/logger.js';

/** Options as a caller without the typings (JavaScript, a spread config object) may pass them. */
function untyped(options: Record<string, unknown>): AnimalStoreOptions {
  return options as AnimalStoreOptions;
}

test('a misspelt option of createAnimalStore is a TypeError naming it and the options it is close to', async () => {
  await assert.rejects(createAnimalStore(untyped({ log: () => {} })), {
    name: 'TypeError',
    message: 'unknown option log; did you mean logLevel or logger?',
  });
  await assert.rejects(createAnimalStore(untyped({ dataDri: '/tmp/x' })), {
    name: 'TypeError',
    message: 'unknown option dataDri; did you mean dataDir?',
  });
  await assert.rejects(createAnimalStore(untyped({ Port: 8080 })), {
    name: 'TypeError',
    message: 'unknown option Port; did you mean port?',
  });
});

test('an option close to none lists every option, settings and program options alike', async () => {
  await assert.rejects(createAnimalStore(untyped({ verbose: true })), (error: unknown) => {
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /^unknown option verbose; the options are basePath, clock, compactMinRecords, /);
    for (const name of ['keys', 'createFirstKey', 'limits', 'logger', 'maxHeaderBytes', 'trustProxy'])
      assert.match(error.message, new RegExp(`\\b${name}\\b`));
    return true;
  });
});

test('an unknown option is refused even when its value is undefined', () => {
  assert.throws(() => resolveSettings(untyped({ prot: undefined })), {
    name: 'TypeError',
    message: 'unknown option prot; did you mean port?',
  });
});

test('every option of AnimalStoreOptions is accepted', async () => {
  const app = await createAnimalStore({
    keys: [{ key: 'known-options-key-0123', plan: 'free' }],
    createFirstKey: false,
    clock: new ManualClock(0),
    limits: { banMs: 1000 },
    logger: QUIET_LOGGER,
    basePath: '/v2',
    logLevel: 'silent',
    dataDir: undefined,
  });
  assert.equal(app.settings.basePath, '/v2');
  await app.close();
});

test('resolveSettings accepts the names its caller handles, and only those', () => {
  assert.equal(resolveSettings(untyped({ port: 1, keys: [] }), ['keys']).port, 1);
  assert.throws(() => resolveSettings(untyped({ keys: [] })), { name: 'TypeError', message: /^unknown option keys; / });
});

test('a misspelt field of the limits option is a TypeError naming it too', async () => {
  await assert.rejects(createAnimalStore(untyped({ limits: { banMS: 1000 } })), {
    name: 'TypeError',
    message: 'unknown option limits.banMS; did you mean limits.banMs?',
  });
  await assert.rejects(createAnimalStore(untyped({ limits: { burst: 5 } })), {
    name: 'TypeError',
    message:
      'unknown option limits.burst; the options are limits.banMs, limits.failedAuthCapacity, limits.failedAuthWindowMs, limits.maxAddresses, limits.refusalWindowMs, limits.refusalsBeforeBan',
  });
});

test('key entries, limits and listen options are checked too, and values that could only break later are refused at once', async () => {
  const key = 'library-key-0123456789';
  await assert.rejects(createAnimalStore(untyped({ keys: [{ key, plna: 'pro' }] })), {
    name: 'TypeError',
    message: 'unknown option keys[0].plna; did you mean keys[0].plan?',
  });
  await assert.rejects(createAnimalStore(untyped({ keys: 'abc' })), {
    name: 'TypeError',
    message: /option keys must be a list of keys/,
  });
  await assert.rejects(createAnimalStore(untyped({ keys: [null] })), {
    name: 'TypeError',
    message: /option keys key 1 must be an object/,
  });
  await assert.rejects(createAnimalStore(untyped({ limits: 5 })), {
    name: 'TypeError',
    message: /option limits must be an object/,
  });
  await assert.rejects(createAnimalStore({ publicUrl: 'notaurl' }), {
    name: 'TypeError',
    message: /option publicUrl must be an http or https address/,
  });
  await assert.rejects(createAnimalStore({ stagingUrl: 'ftp://files.example/v1' }), {
    name: 'TypeError',
    message: /option stagingUrl must be an http or https address/,
  });
  await assert.rejects(createAnimalStore({ corsOrigins: ['https://app.example/path'] }), {
    name: 'TypeError',
    message: /option corsOrigins must be a list of origins/,
  });
  const app = await createAnimalStore({ keys: [{ key, plan: 'pro' }], logger: QUIET_LOGGER });
  try {
    await assert.rejects(app.listen(untyped({ prot: 1 }) as { port?: number }), {
      name: 'TypeError',
      message: 'unknown option listen prot; did you mean listen port?',
    });
    // Node would take a port of text as a local socket's path, and an empty host as every interface.
    for (const port of ['abc', -1, 65536, 1.5] as unknown as number[])
      await assert.rejects(app.listen({ port }), { name: 'TypeError', message: /listen option port must be/ });
    for (const host of ['', 123] as unknown as string[])
      await assert.rejects(app.listen({ host }), { name: 'TypeError', message: /listen option host must be/ });
  } finally {
    await app.close();
  }
  // A port opened after close() would never be closed.
  await assert.rejects(app.listen({ port: 0 }), /this animal store is closed/);
});

test('options of the wrong kind are refused by name, not taken for something else', async () => {
  for (const [options, message] of [
    // "false" would count as true: X-Forwarded-For trusted, /docs served, a first key made.
    [{ trustProxy: 'false' }, /option trustProxy must be true or false/],
    [{ docs: 'false' }, /option docs must be true or false/],
    [{ createFirstKey: 'no' }, /option createFirstKey must be true or false/],
    // An empty host would listen on every interface.
    [{ host: '' }, /option host must be an address/],
    [{ host: 123 }, /option host must be an address/],
    // Past what a Date holds, the Sunset header would read "Invalid Date".
    [{ sunsetAt: 1e20 }, /option sunsetAt must be a time in ms/],
    [{ clock: 5 }, /option clock must have now\(\) and monotonic\(\)/],
    [{ clock: { now: () => Date.now() } }, /option clock must have now\(\) and monotonic\(\)/],
    [{ logger: {} }, /option logger must have error\(\), warn\(\) and info\(\)/],
  ] as const) {
    await assert.rejects(createAnimalStore(untyped(options)), { name: 'TypeError', message }, JSON.stringify(options));
  }
  await assert.rejects(createAnimalStore(null as unknown as AnimalStoreOptions), {
    name: 'TypeError',
    message: /the options of createAnimalStore must be an object/,
  });
});

test('a sunset that does not come after the deprecation is refused', async () => {
  await assert.rejects(createAnimalStore({ deprecatedAt: Date.UTC(2027, 0, 1), sunsetAt: Date.UTC(2026, 0, 1) }), {
    name: 'TypeError',
    message: /option sunsetAt must come after deprecatedAt/,
  });
});

test('a close() that begins while listen() opens its port closes that port too', async () => {
  const port = await freePort();
  const app = await createAnimalStore({ logger: QUIET_LOGGER });
  const listening = app.listen({ port, host: '127.0.0.1' });
  await app.close();
  await assert.rejects(listening, /this animal store is closed/);
  // The port is free again: another server can take it.
  const server = createServer();
  await new Promise<void>((done, fail) => server.once('error', fail).listen(port, '127.0.0.1', done));
  await new Promise((done) => server.close(done));
});

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as AddressInfo;
  await new Promise((done) => probe.close(done));
  return port;
}

test('a close() at any moment of listen() leaves neither the API port nor the metrics port open', async () => {
  for (const delayMs of [0, 1, 2, 5, 10, 20]) {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const app = await createAnimalStore({ logger: QUIET_LOGGER, metricsPort });
    const listening = app.listen({ port, host: '127.0.0.1' }).catch((error: unknown) => error);
    await new Promise((done) => setTimeout(done, delayMs));
    await app.close();
    const outcome = await listening;
    if (outcome instanceof Error) assert.match(outcome.message, /this animal store is closed/);
    for (const taken of [port, metricsPort]) {
      const server = createServer();
      await new Promise<void>((done, fail) => server.once('error', fail).listen(taken, '127.0.0.1', done));
      await new Promise((done) => server.close(done));
    }
  }
});
