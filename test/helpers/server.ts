// A real service on an ephemeral port for black-box tests, and undici helpers to talk to it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, type Dispatcher, request } from 'undici';
import { type AnimalStore, type AnimalStoreOptions, createAnimalStore } from '../../src/app/create-animal-store.js';
import { QUIET_LOGGER } from '../../src/logging/logger.js';
import { CONTRACT_DATABASE_VARIABLE, createTestSchema } from './postgres.js';
import { CONTRACT_REDIS_VARIABLE, freshPrefix } from './redis.js';
import { serviceOptionsFor, testTransport, undiciOptionsFor } from './transport.js';

/** A key every test server accepts (enterprise, so limits stay out of the way unless a test wants them). */
export const TEST_KEY = 'test-key-0123456789abcdef';
export const AUTH = { authorization: `Bearer ${TEST_KEY}` };

export interface TestServer {
  app: AnimalStore;
  url: string;
  dataDir: string | undefined;
  agent: Agent;
  close(): Promise<void>;
}

/**
 * The Redis prefix of each data directory a contract-suite service ran on: a service started again on
 * the same directory is the same deployment, so it finds the limiter state its predecessor left, as it
 * finds the in-memory limiter's saved file.
 */
const prefixOfDataDir = new Map<string, string>();

/**
 * Starts a service on 127.0.0.1:0; with `onDisk`, in a fresh temporary data directory. Over the run's
 * transport (transport.ts): with the first test certificate for https and h2, and an agent that speaks
 * it.
 */
export async function startServer(options: AnimalStoreOptions & { onDisk?: boolean } = {}): Promise<TestServer> {
  const { onDisk = false, ...rest } = options;
  const transport = testTransport();
  if (rest.tlsCert === undefined && rest.tlsKey === undefined) Object.assign(rest, serviceOptionsFor(transport));
  const dataDir = onDisk ? await mkdtemp(join(tmpdir(), 'animal-store-test-')) : undefined;
  // The contract suite on PostgreSQL: every service a test starts gets a fresh schema of its own.
  const contractDatabase = process.env[CONTRACT_DATABASE_VARIABLE];
  if (contractDatabase !== undefined && !onDisk && rest.dataDir === undefined && rest.databaseUrl === undefined)
    rest.databaseUrl = await createTestSchema(contractDatabase);
  // The contract suite on Redis: every service a test starts, on disk or not (the limiter does not
  // depend on the store), keeps its limits in Redis under a fresh key prefix of its own.
  const contractRedis = process.env[CONTRACT_REDIS_VARIABLE];
  if (contractRedis !== undefined && rest.redisUrl === undefined) {
    const directory = dataDir ?? rest.dataDir;
    const prefix = (directory === undefined ? undefined : prefixOfDataDir.get(directory)) ?? freshPrefix();
    if (directory !== undefined) prefixOfDataDir.set(directory, prefix);
    rest.redisUrl = contractRedis;
    rest.redisPrefix = prefix;
  }
  const app = await createAnimalStore({
    keys: [{ key: TEST_KEY, plan: 'enterprise', perMinute: 1_000_000, perDay: 100_000_000 }],
    logger: QUIET_LOGGER,
    durability: 'never',
    ...(dataDir !== undefined && { dataDir }),
    ...rest,
  });
  const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
  // A service given its own certificate is spoken to over TLS whatever the run's transport.
  const spoken = rest.tlsCert === undefined ? 'http' : transport === 'http' ? 'https' : transport;
  const agent = new Agent({ keepAliveTimeout: 1000, ...undiciOptionsFor(spoken) });
  return {
    app,
    url,
    dataDir: dataDir ?? rest.dataDir,
    agent,
    async close() {
      await agent.close();
      await app.close();
      if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

/** Sends one request and reads the whole answer. */
export async function call(
  server: TestServer,
  method: Dispatcher.HttpMethod,
  path: string,
  options: { headers?: Record<string, string | string[]>; body?: string | Buffer; json?: unknown } = {},
): Promise<Reply> {
  const headers: Record<string, string | string[]> = { ...AUTH, ...options.headers };
  // An empty value means "send no such header" (e.g. no Authorization).
  for (const [name, value] of Object.entries(headers)) if (value === '') delete headers[name];
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const response = await request(`${server.url}${path}`, { method, headers, body, dispatcher: server.agent });
  const text = await response.body.text();
  let json: unknown;
  try {
    json = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text, json };
}

/** Creates a pet and returns its body. */
export async function createPet(
  server: TestServer,
  pet: Record<string, unknown>,
): Promise<{ id: number; name: string; categoryId: number; status: string }> {
  const reply = await call(server, 'POST', '/v1/pets', { json: pet });
  if (reply.status !== 201) throw new Error(`create failed: ${reply.status} ${reply.text}`);
  return reply.json as { id: number; name: string; categoryId: number; status: string };
}
