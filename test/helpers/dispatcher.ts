// A bare dispatcher on an ephemeral port, for tests of the request pipeline itself: a router the test
// builds, one free-plan key, the in-memory limiter on a manual clock, and whatever the test overrides.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../../src/core/clock.js';
import { createDispatcher, type DispatchContext, type Dispatcher } from '../../src/http/dispatch.js';
import type { Route } from '../../src/http/route.js';
import { Router } from '../../src/http/router.js';
import { Idempotency } from '../../src/idempotency/idempotency.js';
import { type ApiKey, hashKey } from '../../src/keys/api-key.js';
import { KeyRing } from '../../src/keys/key-ring.js';
import { MemoryLimiter } from '../../src/limits/index.js';
import { MemoryIdempotencyTable } from '../../src/store/embedded/idempotency-table.js';

/** The key every dispatcher test authenticates with. */
export const DISPATCH_KEY = 'dispatch-test-key-0123456789';

/** Its record: free plan (60 a minute, 1,000 a day) unless a test passes `keyLimits`. */
export function dispatchKeyRecord(
  limits: { perMinute: number; perDay: number } = { perMinute: 60, perDay: 1000 },
): ApiKey {
  return {
    id: 'key_1',
    name: 't',
    plan: 'free',
    ...limits,
    hash: hashKey(DISPATCH_KEY),
    createdAt: '',
    revokedAt: null,
  };
}

export interface DispatcherOptions extends Partial<DispatchContext> {
  /** The key's limits, when the test needs more than the free plan's. */
  keyLimits?: { perMinute: number; perDay: number };
}

export interface ServedDispatcher {
  /** The origin, e.g. http://127.0.0.1:40123 (the API lives under /v1). */
  origin: string;
  /** The dispatcher itself, for what it counts. */
  dispatcher: Dispatcher;
  server: Server;
  close(): void;
}

/** A dispatcher with working defaults for everything `options` leaves out, listening on 127.0.0.1:0. */
export async function serveDispatcher(options: DispatcherOptions = {}): Promise<ServedDispatcher> {
  const { keyLimits, ...overrides } = options;
  const clock = overrides.clock ?? new ManualClock(Date.UTC(2027, 0, 1));
  const idempotency = new Idempotency(new MemoryIdempotencyTable(), clock);
  const handler = createDispatcher({
    basePath: '/v1',
    router: new Router<Route>(),
    keys: new KeyRing([dispatchKeyRecord(keyLimits)]),
    limiter: new MemoryLimiter(clock),
    clock,
    maxBodyBytes: 1024,
    maxUrlBytes: 8192,
    maxHeaderBytes: 16384,
    trustProxy: false,
    maxInFlight: 10,
    cors: undefined,
    openapiJson: '{}',
    arrive: (scope, key, status) => idempotency.arrive(scope, key, status),
    checkReady: async () => {},
    isAccepting: () => true,
    logError: () => {},
    ...overrides,
  });
  const server = createServer(handler).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    dispatcher: handler,
    server,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
