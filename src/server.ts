// Wiring: settings, the data directory (lock, log, keys, cursor secret, limiter state), the store,
// the operations and the listener. `createAnimalStore` is what the CLI and embedding programs call;
// only `listen` opens a port.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { type ApiKey, generateKey, hashKey, newKeyId } from './auth/api-key.js';
import { type KeySpec, keysFromSpecs } from './auth/configured-keys.js';
import { loadKeyFile, saveKeyFile } from './auth/key-file.js';
import { KeyRing } from './auth/key-ring.js';
import { type Clock, systemClock } from './clock.js';
import { resolveSettings, type Settings } from './config.js';
import { loadOrCreateSecret, restoreLimiterState, saveLimiterState, watchKeyFile } from './data-files.js';
import { clientErrorListener } from './http/client-errors.js';
import { answerConnect } from './http/connect.js';
import { CorsPolicy } from './http/cors.js';
import { createDispatcher } from './http/dispatch.js';
import type { Operation } from './http/operation.js';
import { Router } from './http/router.js';
import { type LimiterOptions, PLAN_LIMITS, RateLimiter, resolveLimiterOptions } from './limits/index.js';
import { createLogger, type Logger } from './logger.js';
import { buildOpenApi } from './openapi.js';
import { assertKnownOptions } from './option-names.js';
import { orderOperations } from './orders/operations.js';
import { CursorCodec } from './paging.js';
import { petOperations } from './pets/operations.js';
import { type Change, decodeChangeAt, idsInTornRecord } from './state/changes.js';
import { durableLog } from './state/durable-log.js';
import { NO_LOG, StoreState } from './state/store-state.js';
import type { Journal } from './storage/index.js';
import { type OrderAccess, type PetAccess, storeAccess } from './store-access.js';

/** Options of `createAnimalStore`: every setting of config.ts, plus what only a program can pass. */
export interface AnimalStoreOptions extends Partial<Settings> {
  /** Keys accepted besides those of the keys file (ANIMAL_STORE_KEYS uses this too). */
  keys?: KeySpec[];
  /** Create and print a first key when no key is configured (the CLI's first start). Default true with a data directory. */
  createFirstKey?: boolean;
  clock?: Clock;
  limits?: LimiterOptions;
  /** Where operational messages and the access log go; default: warnings and errors as JSON lines on stderr. */
  logger?: Logger;
}

/** A running animal store: its listener, its data, and how to stop it. */
export interface AnimalStore {
  /** A plain `(req, res)` listener; mount it in any node:http server. */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** Opens the port; resolves once it is listening with its origin (`url`), the API's address (`apiUrl`: url + basePath, what a client takes) and the server. */
  listen(options?: { port?: number; host?: string }): Promise<{ url: string; apiUrl: string; server: Server }>;
  /** Graceful stop: refuse new work, finish what is in flight, flush the log, save limiter state, release the lock. */
  close(): Promise<void>;
  /** The pets, typed: the API's own operations (validation, ids, durability, errors) without HTTP. */
  readonly pets: PetAccess;
  /** The orders (beta), typed, likewise. */
  readonly orders: OrderAccess;
  /** The store's internals (indexes, stored JSON, remembered Idempotency-Key answers), for tests and tools; change it through `pets` and `orders`. */
  readonly state: StoreState;
  readonly settings: Settings;
  /** The key created on this first start, if one was: shown once, never stored. */
  readonly firstKey: string | undefined;
  /** Reads the keys file again (also done by watching it, and on SIGHUP in the CLI). */
  reloadKeys(): Promise<void>;
}

/**
 * The options of createAnimalStore that are not settings of config.ts. A Record over exactly those
 * names, so that an option added to AnimalStoreOptions but not here fails to compile instead of
 * being refused as unknown at run time.
 */
const PROGRAM_OPTIONS: Readonly<Record<Exclude<keyof AnimalStoreOptions, keyof Settings>, true>> = {
  keys: true,
  createFirstKey: true,
  clock: true,
  limits: true,
  logger: true,
};
/** The fields of the `limits` option, from its defaults. */
const LIMITER_OPTIONS = Object.keys(resolveLimiterOptions());

const LIMITER_STATE_FILE = 'limits.json';
const CURSOR_SECRET_FILE = 'cursor.secret';
/** How long `close` lets in-flight requests finish before cutting their connections. */
const CLOSE_GRACE_MS = 10_000;
/** How often a stopping service looks whether its last request has been answered. */
const DRAIN_POLL_MS = 10;

/** Builds the service: opens (and locks) the data directory, replays the log, and wires the listener. */
export async function createAnimalStore(options: AnimalStoreOptions = {}): Promise<AnimalStore> {
  const settings = resolveSettings(options, Object.keys(PROGRAM_OPTIONS));
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger({ level: settings.logLevel });
  const log = (line: string): void => logger.warn(line);
  const fixedKeys = keysFromSpecs(options.keys ?? [], 'option keys');
  if (options.limits !== undefined) {
    if (typeof options.limits !== 'object' || options.limits === null)
      throw new TypeError('option limits must be an object such as { banMs: 60000 }');
    assertKnownOptions(options.limits, LIMITER_OPTIONS, 'limits.');
  }
  const limiter = new RateLimiter(clock, options.limits);
  const dataDir = settings.dataDir === undefined ? undefined : resolve(settings.dataDir);

  let journal: Journal | undefined;
  let state: StoreState;
  let cursorSecret: Buffer;
  let fileKeys: ApiKey[] = [];
  let firstKey: string | undefined;
  if (dataDir === undefined) {
    state = new StoreState(NO_LOG, clock);
    cursorSecret = randomBytes(32);
  } else {
    // openJournal creates the directory. Loaded only with a data directory: an in-memory embedding never needs the storage layer.
    const { openJournal } = await import('./storage/index.js');
    // Records are decoded from the log's bytes as replay finds them; a record this service did not
    // write stops start-up, naming it.
    const changes: Change[] = [];
    const onRecord = (bytes: Buffer, start: number, end: number): void => {
      changes.push(decodeChangeAt(bytes, start, end, () => `${dataDir}/animals.log record ${changes.length + 1}`));
    };
    const opened = await openJournal({
      dir: dataDir,
      durability: settings.durability,
      intervalMs: settings.fsyncIntervalMs,
      warn: log,
      onRecord,
    });
    journal = opened.journal;
    try {
      state = new StoreState(
        durableLog(journal, () => state, settings.compactMinRecords, log),
        clock,
      );
      for (const change of changes) state.apply(change);
      changes.length = 0;
      if (opened.replayed.tornTail !== undefined) {
        const { petId, orderId } = idsInTornRecord(opened.replayed.tornTail.text);
        if (petId !== undefined) state.pets.noteId(petId);
        if (orderId !== undefined) state.orders.noteId(orderId);
      }
      cursorSecret = await loadOrCreateSecret(join(dataDir, CURSOR_SECRET_FILE));
      fileKeys = await loadKeyFile(dataDir);
      await restoreLimiterState(limiter, join(dataDir, LIMITER_STATE_FILE));
    } catch (error) {
      await journal.close();
      throw error;
    }
  }

  const keyRing = new KeyRing(fixedKeys, fileKeys);
  if (keyRing.activeCount === 0 && (options.createFirstKey ?? true)) {
    firstKey = generateKey();
    const record: ApiKey = {
      id: newKeyId(),
      name: 'first key',
      plan: 'free',
      ...PLAN_LIMITS.free,
      hash: hashKey(firstKey),
      createdAt: new Date(clock.now()).toISOString(),
      revokedAt: null,
    };
    fileKeys = [...fileKeys, record];
    if (dataDir !== undefined) await saveKeyFile(dataDir, fileKeys);
    keyRing.replaceFileKeys(fileKeys);
  }

  const reloadKeys = async (): Promise<void> => {
    if (dataDir === undefined) return;
    const keys = await loadKeyFile(dataDir);
    keyRing.replaceFileKeys(keys);
    for (const key of keys) if (key.revokedAt !== null) limiter.forgetKey(key.id);
  };
  const stopWatching =
    dataDir === undefined
      ? () => {}
      : watchKeyFile(
          dataDir,
          () => {
            reloadKeys().catch((error: unknown) => log(`keys file not reloaded: ${(error as Error).message}`));
          },
          (reason) => log(`keys file no longer watched: ${reason}`),
        );

  const router = new Router<Operation>();
  const cursors = new CursorCodec(cursorSecret);
  const operations = [
    ...petOperations({
      state,
      clock,
      cursors,
      basePath: settings.basePath,
      getPetDeprecation: {
        headers: {
          deprecation: `@${Math.floor(settings.deprecatedAt / 1000)}`,
          sunset: new Date(settings.sunsetAt).toUTCString(),
          link: `<${settings.basePath}/pets>; rel="successor-version"`,
        },
        sunsetMs: settings.sunsetAt,
        replacement: `GET ${settings.basePath}/pets with a status filter`,
      },
    }),
    ...orderOperations({ state, clock, cursors, basePath: settings.basePath }),
  ];
  for (const operation of operations) router.add(operation.method, operation.path, operation);

  let accepting = true;
  const servers: Server[] = [];
  const handler = createDispatcher({
    basePath: settings.basePath,
    router,
    keys: keyRing,
    limiter,
    clock,
    maxBodyBytes: settings.maxBodyBytes,
    maxUrlBytes: settings.maxUrlBytes,
    trustProxy: settings.trustProxy,
    maxInFlight: settings.maxInFlight,
    cors: settings.corsOrigins.length === 0 ? undefined : new CorsPolicy(settings.corsOrigins),
    idempotency: state.idempotency,
    openapiJson: JSON.stringify(buildOpenApi(settings)),
    isAccepting: () => accepting,
    logError: (requestId, error) => {
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      logger.error('unhandled error', { requestId, error: detail });
    },
    accessLog: logger.access,
  });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      accepting = false;
      stopWatching();
      // The listener stays open while requests are in flight, so that new ones (a health probe, a load
      // balancer that has not noticed yet) get a prompt 503 instead of a refused connection.
      const deadlineMs = performance.now() + CLOSE_GRACE_MS;
      while (handler.inFlight() > 0 && performance.now() < deadlineMs) await delay(DRAIN_POLL_MS);
      await Promise.all(servers.map((server) => stopServer(server, Math.max(0, deadlineMs - performance.now()))));
      if (dataDir !== undefined) {
        await saveLimiterState(limiter, join(dataDir, LIMITER_STATE_FILE)).catch((error: unknown) => {
          log(`could not save rate-limit state in ${dataDir}: ${(error as Error).message}`);
        });
      }
      await journal?.close();
    })();
    return closing;
  };

  const listen = async (
    listenOptions: { port?: number; host?: string } = {},
  ): Promise<{ url: string; apiUrl: string; server: Server }> => {
    assertKnownOptions(listenOptions, ['port', 'host'], 'listen ');
    const server = createServer(
      {
        headersTimeout: settings.headersTimeoutMs,
        requestTimeout: settings.requestTimeoutMs,
        keepAliveTimeout: settings.keepAliveTimeoutMs,
        maxHeaderSize: settings.maxHeaderBytes,
        // The dispatcher checks Host itself, so a missing or repeated one gets the JSON 400 (RFC 9112 §3.2).
        requireHostHeader: false,
        // Node checks the two timeouts above only this often (30 s by default): check every second so
        // a slow client is cut off on time.
        connectionsCheckingInterval: 1000,
      },
      handler,
    );
    server.maxConnections = settings.maxConnections;
    server.on('clientError', clientErrorListener(settings.maxHeaderBytes));
    server.on('connect', answerConnect(handler));
    // RFC 9110 §10.1.1 lets a server ignore an expectation it does not know; Node would answer a bare
    // 417 without the JSON body, so such a request is served as if it had no Expect header.
    server.on('checkExpectation', handler);
    const host = listenOptions.host ?? settings.host;
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(listenOptions.port ?? settings.port, host, () => {
        server.off('error', fail);
        done();
      });
    });
    servers.push(server);
    const { port } = server.address() as AddressInfo;
    const shownHost = host.includes(':') ? `[${host}]` : host;
    const url = `http://${shownHost}:${port}`;
    return { url, apiUrl: `${url}${settings.basePath}`, server };
  };

  const { pets, orders } = storeAccess(operations);
  return { handler, listen, close, pets, orders, state, settings, firstKey, reloadKeys };
}

/** Stops accepting connections, lets in-flight requests finish (for up to `graceMs`), then closes the rest. */
function stopServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((done) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      done();
    });
    server.closeIdleConnections();
  });
}
