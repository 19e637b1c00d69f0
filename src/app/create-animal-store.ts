// The composition root: settings → store → limiter → keys → service → HTTP → listener. `createAnimalStore`
// is what the CLI and embedding programs call; each step is a function of its own, and only `listen`
// opens a port.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { type Settings, webhookSettingsOf } from '../config/settings.js';
import { loadKeys } from '../keys/service-keys.js';
import type { PrimaryChannel } from '../metrics/cluster-metrics.js';
import { createService } from '../service/service.js';
import { TlsCertificates } from '../tls/tls-certificates.js';
import { createDeliveryTransport } from '../webhooks/delivery-transport.js';
import { DeliveryWorker } from '../webhooks/delivery-worker.js';
import { apiLoadOf } from './api-load.js';
import { createHttpHandler } from './http-handler.js';
import { type Listening, Listeners } from './listener.js';
import { type OpenedStore, openLimiter, openStore } from './open-backends.js';
import { type AnimalStoreOptions, resolveOptions } from './options.js';
import { readinessCheck } from './readiness.js';

export type { AnimalStoreOptions };
import { type OrderAccess, type PetAccess, typedAccess } from './typed-access.js';

/** A running animal store: its listener, its data, and how to stop it. */
export interface AnimalStore {
  /** A plain `(req, res)` listener; mount it in any node:http server. */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** Opens the port; resolves once it is listening with its origin (`url`), the API's address (`apiUrl`: url + basePath, what a client takes) and the server. */
  listen(options?: { port?: number; host?: string }): Promise<Listening>;
  /** Graceful stop: refuse new work, finish what is in flight, make the data durable, save limiter state, let go of the store. */
  close(): Promise<void>;
  /** API requests being answered now: those a graceful stop waits for. */
  inFlight(): number;
  /** The pets, typed: the API's own operations (validation, ids, durability, errors) without HTTP. */
  readonly pets: PetAccess;
  /** The orders (beta), typed, likewise. */
  readonly orders: OrderAccess;
  readonly settings: Settings;
  /** The key created on this first start, if one was: shown once, never stored. */
  readonly firstKey: string | undefined;
  /** Reads the store's keys again (also done whenever they change, and on SIGUSR2 in `animal-store serve`). */
  reloadKeys(): Promise<void>;
  /**
   * Reads the TLS certificate and key again (also done whenever they change, and on SIGUSR2 in
   * `animal-store serve`): 'reloaded' when the next connections get a new pair, 'unchanged' when the
   * files hold the pair in force. Rejects naming the file when the pair is bad (the one in force is
   * kept), or when the service serves no TLS.
   */
  reloadTls(): Promise<'reloaded' | 'unchanged'>;
}

/** The longest a graceful stop waits for webhook attempts in flight. */
const DELIVERY_DRAIN_MS = 10_000;

/** What only `animal-store serve` asks of the composition root, beyond the options of the library. */
export interface ServeHooks {
  /**
   * This process is a worker of `--workers`: its metrics are answered to the primary, which owns the
   * metrics port and sums every worker's (src/metrics/cluster-metrics.ts), rather than on a port.
   */
  metricsToPrimary?: PrimaryChannel;
}

/** Builds the service: opens (and locks) its store, opens its limiter, and wires the listener. */
export function createAnimalStore(options: AnimalStoreOptions = {}): Promise<AnimalStore> {
  return openAnimalStore(options, {});
}

/** createAnimalStore, with what only the command line asks (ServeHooks). */
export async function openAnimalStore(options: AnimalStoreOptions, hooks: ServeHooks): Promise<AnimalStore> {
  const { settings, clock, logger, fixedKeys, limits, createFirstKey } = resolveOptions(options);
  const warn = (line: string, fields?: Record<string, unknown>): void => logger.warn(line, fields);
  // Read and checked before anything is opened: a bad certificate leaves no data directory behind.
  const tls =
    settings.tlsCert === undefined || settings.tlsKey === undefined
      ? undefined
      : await TlsCertificates.open({ certPath: settings.tlsCert, keyPath: settings.tlsKey }, logger, () => clock.now());
  // A server this start needs (Redis) is reached before the store is opened, so that a start refused
  // because it cannot be reached leaves no data directory behind. The in-memory limiter is opened after
  // the store: it reads its state from the data directory, once the store holds the directory's lock.
  const remoteLimiter = settings.redisUrl === undefined ? undefined : await openLimiter(settings, clock, limits, warn);
  let openedStore: OpenedStore;
  try {
    openedStore = await openStore(settings, clock, warn);
  } catch (error) {
    await remoteLimiter?.close().catch(() => {});
    throw error;
  }
  const { store, journal } = openedStore;
  let keys: Awaited<ReturnType<typeof loadKeys>>;
  let limiter: Awaited<ReturnType<typeof openLimiter>> | undefined = remoteLimiter;
  try {
    const opened = remoteLimiter ?? (await openLimiter(settings, clock, limits, warn));
    limiter = opened;
    // A revoked key's buckets and ban are forgotten whenever the keys are read again.
    const forgetKey = (id: string) => opened.forgetKey(id);
    keys = await loadKeys(store.keys, { fixedKeys, createFirstKey, clock, forgetKey, warn });
  } catch (error) {
    // Nothing opened is left open: a connection to Redis or PostgreSQL would keep the process alive.
    await limiter?.close().catch(() => {});
    await store.close();
    throw error;
  }
  // A program that configured no key and did not ask for one is told that a key was made and where it
  // is, rather than finding every request refused (401) with no idea why. The key itself is never logged.
  if (keys.firstKey !== undefined && options.createFirstKey === undefined) {
    warn(
      'No API key was configured, so a first key (free plan) was created; its secret is in app.firstKey, ' +
        'shown only this once. Pass keys: [...] to choose your own, or createFirstKey: false for none.',
    );
  }
  const webhookSettings = webhookSettingsOf(settings);
  const service = createService(store, clock, webhookSettings);
  const sender = createDeliveryTransport({
    allowPrivate: settings.webhookAllowPrivate,
    timeoutMs: settings.webhookTimeoutMs,
  });
  // Every instance delivers: on a shared store each due delivery is claimed by one of them at a time.
  const deliveries = new DeliveryWorker({
    store: store.webhooks,
    sender,
    clock,
    settings: webhookSettings,
    isKeyActive: (id) => keys.ring.isActive(id),
    apiLoad: apiLoadOf(() => handler),
    observer: {
      attempted: (outcome) => metrics?.webhookAttempted(outcome),
      disabled: (id, reason) => {
        metrics?.webhookDisabled();
        warn(`webhook ${id} was disabled: ${reason}`);
      },
    },
  });

  // Loaded only when metrics are asked for: prom-client stays out of a service that serves none.
  const metrics =
    settings.metricsPort === undefined
      ? undefined
      : (await import('../metrics/service-metrics.js')).createServiceMetrics(store, () => handler.inFlight(), journal);

  // A worker of `--workers` answers its primary's scrapes instead of opening the metrics port.
  const stopAnsweringPrimary =
    metrics === undefined || hooks.metricsToPrimary === undefined
      ? undefined
      : (await import('../metrics/cluster-metrics.js')).answerPrimaryScrapes(metrics, hooks.metricsToPrimary);

  let accepting = true;
  const handler = createHttpHandler({
    settings,
    service,
    keys: keys.ring,
    limiter,
    clock,
    logger,
    isAccepting: () => accepting,
    checkReady: readinessCheck(
      [
        { name: 'the store', ping: () => store.ping() },
        { name: 'the rate limiter', ping: () => limiter.ping() },
      ],
      warn,
    ),
    observe: metrics?.observer,
  });
  // Started once the metrics it reports to and the requests it gives way to exist.
  if (settings.webhookDelivery) deliveries.start();
  const listeners = new Listeners(settings, handler, tls);
  let metricsServer: Server | undefined;
  const listen = async (listenOptions?: { port?: number; host?: string }): Promise<Listening> => {
    // A port opened after close() would never be closed: close() has already run.
    if (closing !== undefined) throw new Error('this animal store is closed; create a new one to listen again');
    const listening = await listeners.listen(listenOptions);
    // A close() begun while the port opened has closed it already (Listeners.listen refuses then too).
    if (closing !== undefined) throw new Error('this animal store is closed; create a new one to listen again');
    // Followed from the first port on: a service that serves nothing has no certificate to renew.
    if (tls !== undefined && !watchingTls) {
      watchingTls = true;
      tls.watch();
    }
    if (metrics === undefined || settings.metricsPort === undefined || stopAnsweringPrimary !== undefined)
      return listening;
    // Opened with the first API port, on a port of its own.
    if (metricsServer === undefined) {
      const { listenMetrics } = await import('../metrics/metrics-listener.js');
      const opened = await listenMetrics(metrics, settings.metricsPort, settings.metricsHost);
      // A close() begun while the metrics port opened no longer closes it: closed here.
      if (closing !== undefined) {
        await new Promise((done) => opened.server.close(done));
        throw new Error('this animal store is closed; create a new one to listen again');
      }
      metricsServer = opened.server;
      metricsUrl = opened.url;
    }
    return { ...listening, metricsUrl };
  };
  let metricsUrl = '';
  let watchingTls = false;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      accepting = false;
      keys.stopWatching();
      tls?.close();
      await listeners.drain();
      stopAnsweringPrimary?.();
      if (metricsServer !== undefined) {
        const server = metricsServer;
        const closed = new Promise((done) => server.close(done));
        server.closeAllConnections();
        await closed;
      }
      // Attempts in flight may finish (as long as one may take, at most DELIVERY_DRAIN_MS); the rest stay pending.
      await deliveries.stop(Math.min(settings.webhookTimeoutMs, DELIVERY_DRAIN_MS));
      await sender.close();
      await limiter
        .close()
        .catch((error: unknown) => warn(`could not save the rate-limit state: ${(error as Error).message}`));
      await store.close();
    })();
    return closing;
  };

  return {
    handler,
    listen,
    close,
    inFlight: () => handler.inFlight(),
    ...typedAccess(service),
    settings,
    firstKey: keys.firstKey,
    reloadKeys: keys.reload,
    reloadTls: () =>
      tls === undefined ? Promise.reject(new Error('this service serves no TLS: no tlsCert is set')) : tls.reload(),
  };
}
