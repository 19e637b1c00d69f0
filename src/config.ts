// Every setting of the service in one table: its library option, CLI flag, environment variable,
// default and meaning. The CLI and `--help` come from it, and a test holds the README's configuration
// table to its flags and variables.
// Bad values are programmer or operator errors: they throw a TypeError naming the setting.
import { availableParallelism } from 'node:os';
import { isOrigin } from './origin.js';
import type { LimiterOptions } from './limits/index.js';
import { MAX_REFUSALS_BEFORE_BAN } from './limits/options.js';
import { LOG_LEVELS, type LogLevel } from './logger.js';
import { assertKnownOptions } from './option-names.js';
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from './webhooks/settings.js';

/** How a setting's text (flag or environment) becomes a value. */
type Kind =
  | 'msList'
  | 'port'
  | 'integer'
  | 'string'
  | 'path'
  | 'basePath'
  | 'url'
  | 'date'
  | 'durability'
  | 'boolean'
  | 'origins'
  | 'logLevel'
  | 'workers'
  | 'databaseUrl'
  | 'redisUrl'
  | 'limiterUnavailable';

/** What every row of the table has. */
interface SettingRow {
  flag: string;
  env: string;
  kind: Kind;
  description: string;
  /** Largest value of an `integer` setting given as text; unbounded when absent. */
  max?: number;
}

/**
 * One setting of the table: an option of createAnimalStore (`option`), or a field of its `limits`
 * option (`limit`: the rate limiter's tunables of README "Rate limits", whose defaults and library-side
 * checks live in src/limits/options.ts).
 */
export type Setting = SettingRow &
  (
    | { option: keyof Settings }
    | { limit: keyof LimiterOptions; kind: 'integer' }
    | { serve: keyof ServeOnlySettings; kind: 'workers' }
  );

/** Settings of `animal-store serve` alone: how the process runs, which no library option means. */
export interface ServeOnlySettings {
  /** Processes serving the one port (node:cluster); 1 serves from the process started. */
  workers: number;
}

export const SERVE_ONLY_DEFAULTS: ServeOnlySettings = { workers: 1 };

/** Longest webhook time setting, in ms: a year, far past any schedule, and safe to add to a timestamp. */
const MAX_WEBHOOK_MS = 366 * 86_400_000;
/** Most webhook retries: the default schedule has seven. */
const MAX_WEBHOOK_RETRIES = 100;

/** Most workers settable: far past the cores of any one machine. */
const MAX_WORKERS = 1024;

/**
 * Longest refusal window and ban settable by flag or variable. A day is the longest period the
 * limiter reasons in (the day bucket); a key that misbehaves for longer is revoked, not banned.
 */
const MAX_LIMITER_PERIOD_MS = 86_400_000;
/** Most failed authentications an address may be allowed per minute: far past any real client's mistakes. */
const MAX_FAILED_AUTH_PER_MINUTE = 100_000;
/** Most PostgreSQL connections per instance: PostgreSQL's own default allows 100 in all. */
const MAX_DATABASE_POOL_SIZE = 1000;
/** Bound of the per-address table settable by flag or variable: at ~280 bytes an entry, about 280 MB. */
const MAX_ADDRESSES = 1_000_000;

/** The values of every setting, after defaults. */
export interface Settings {
  host: string;
  port: number;
  /** Where data lives; `undefined` keeps everything in memory (library use only). */
  dataDir: string | undefined;
  basePath: string;
  maxBodyBytes: number;
  maxUrlBytes: number;
  durability: 'always' | 'interval' | 'never';
  fsyncIntervalMs: number;
  publicUrl: string;
  stagingUrl: string;
  deprecatedAt: number;
  sunsetAt: number;
  trustProxy: boolean;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** The log is compacted once at least this many of its records are superseded, and a third of it or more. */
  compactMinRecords: number;
  /** API requests in flight at once; more get a fast 503 instead of a growing queue. */
  maxInFlight: number;
  /** Open connections at once; Node closes further ones on arrival. */
  maxConnections: number;
  /** Largest request head (request line and headers), in bytes; 431 above. */
  maxHeaderBytes: number;
  /** Origins allowed by CORS; none (CORS off) by default. */
  corsOrigins: string[];
  /** Lowest level logged: info (with the access log), warn, error or silent. */
  logLevel: LogLevel;
  /** Whether GET /docs serves the API reference page. */
  docs: boolean;
  /** A PostgreSQL connection URI: the store every instance shares; undefined keeps the embedded store. */
  databaseUrl: string | undefined;
  /** Connections of this instance's PostgreSQL pool. */
  databasePoolSize: number;
  /** A Redis URL: rate limits shared by every instance; undefined keeps them in this process's memory. */
  redisUrl: string | undefined;
  /** Put before every Redis key, so that several deployments can share one Redis. */
  redisPrefix: string;
  /** While Redis cannot be reached: `closed` answers 503, `open` serves without limits. */
  limiterUnavailable: 'closed' | 'open';
  /** The port of GET /metrics (Prometheus), a listener of its own; undefined serves no metrics. */
  metricsPort: number | undefined;
  /** The address the metrics listener binds to. */
  metricsHost: string;
  /** The waits before each retry of a webhook delivery, in ms (docs/events.md). */
  webhookRetryMs: number[];
  /** How long one delivery attempt may take, in ms. */
  webhookTimeoutMs: number;
  /** A webhook failing with no success for this long is disabled, in ms. */
  webhookDisableAfterMs: number;
  /** How long a rotated-out webhook secret still signs, in ms. */
  webhookSecretOverlapMs: number;
  /** How long events and delivery attempts are kept, in ms. */
  eventRetentionMs: number;
  /** Whether webhooks may reach loopback, private and other internal addresses. */
  webhookAllowPrivate: boolean;
}

export const DEFAULT_SETTINGS: Settings = {
  host: '127.0.0.1',
  port: 8080,
  dataDir: undefined,
  basePath: '/v1',
  maxBodyBytes: 64 * 1024,
  maxUrlBytes: 8 * 1024,
  durability: 'always',
  fsyncIntervalMs: 1000,
  publicUrl: 'https://api.animal-store.example/v1',
  stagingUrl: 'https://staging.animal-store.example/v1',
  // README "How the API behaves": deprecated since the first release, removed on 5 December 2030.
  deprecatedAt: Date.UTC(2026, 10, 22),
  sunsetAt: Date.UTC(2030, 11, 5),
  trustProxy: false,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  compactMinRecords: 10_000,
  maxInFlight: 1024,
  maxConnections: 10_000,
  // Node's default (16 KiB), which README "Errors" names for 431.
  maxHeaderBytes: 16 * 1024,
  corsOrigins: [],
  // Embedded, the host program logs; the CLI defaults to info (with the access log).
  logLevel: 'warn',
  docs: true,
  databaseUrl: undefined,
  databasePoolSize: 10,
  redisUrl: undefined,
  redisPrefix: 'animal-store:',
  limiterUnavailable: 'closed',
  metricsPort: undefined,
  metricsHost: '127.0.0.1',
  webhookRetryMs: [...DEFAULT_WEBHOOK_SETTINGS.retryWaitsMs],
  webhookTimeoutMs: DEFAULT_WEBHOOK_SETTINGS.timeoutMs,
  webhookDisableAfterMs: DEFAULT_WEBHOOK_SETTINGS.disableAfterMs,
  webhookSecretOverlapMs: DEFAULT_WEBHOOK_SETTINGS.secretOverlapMs,
  eventRetentionMs: DEFAULT_WEBHOOK_SETTINGS.eventRetentionMs,
  webhookAllowPrivate: DEFAULT_WEBHOOK_SETTINGS.allowPrivate,
};

/** The webhook part of `settings`, as the webhook service and the delivery worker take it. */
export function webhookSettingsOf(settings: Settings): WebhookSettings {
  return {
    ...DEFAULT_WEBHOOK_SETTINGS,
    retryWaitsMs: settings.webhookRetryMs,
    timeoutMs: settings.webhookTimeoutMs,
    disableAfterMs: settings.webhookDisableAfterMs,
    secretOverlapMs: settings.webhookSecretOverlapMs,
    eventRetentionMs: settings.eventRetentionMs,
    allowPrivate: settings.webhookAllowPrivate,
  };
}

export const SETTINGS: readonly Setting[] = [
  {
    option: 'port',
    flag: '--port',
    env: 'ANIMAL_STORE_PORT',
    kind: 'port',
    description: 'TCP port to listen on (0 picks a free one).',
  },
  { option: 'host', flag: '--host', env: 'ANIMAL_STORE_HOST', kind: 'string', description: 'Address to listen on.' },
  {
    option: 'dataDir',
    flag: '--data-dir',
    env: 'ANIMAL_STORE_DATA_DIR',
    kind: 'path',
    description: 'Directory of the log, keys and state (created if missing).',
  },
  {
    option: 'basePath',
    flag: '--base-path',
    env: 'ANIMAL_STORE_BASE_PATH',
    kind: 'basePath',
    description: 'Path prefix of every API route.',
  },
  {
    option: 'maxBodyBytes',
    flag: '--max-body-bytes',
    env: 'ANIMAL_STORE_MAX_BODY_BYTES',
    kind: 'integer',
    description: 'Largest request body, in bytes (413 above).',
  },
  {
    option: 'maxUrlBytes',
    flag: '--max-url-bytes',
    env: 'ANIMAL_STORE_MAX_URL_BYTES',
    kind: 'integer',
    description: 'Longest request target, in bytes (414 above).',
  },
  {
    option: 'durability',
    flag: '--durability',
    env: 'ANIMAL_STORE_DURABILITY',
    kind: 'durability',
    description: 'When writes are fsynced: always, interval or never.',
  },
  {
    option: 'fsyncIntervalMs',
    flag: '--fsync-interval-ms',
    env: 'ANIMAL_STORE_FSYNC_INTERVAL_MS',
    kind: 'integer',
    description: 'fsync period under durability=interval, in ms.',
  },
  {
    option: 'publicUrl',
    flag: '--public-url',
    env: 'ANIMAL_STORE_PUBLIC_URL',
    kind: 'url',
    description: 'Production address in the OpenAPI servers list.',
  },
  {
    option: 'stagingUrl',
    flag: '--staging-url',
    env: 'ANIMAL_STORE_STAGING_URL',
    kind: 'url',
    description: 'Staging address in the OpenAPI servers list.',
  },
  {
    option: 'deprecatedAt',
    flag: '--deprecated-at',
    env: 'ANIMAL_STORE_DEPRECATED_AT',
    kind: 'date',
    description: 'Date getPet was deprecated (Deprecation header).',
  },
  {
    option: 'sunsetAt',
    flag: '--sunset-at',
    env: 'ANIMAL_STORE_SUNSET_AT',
    kind: 'date',
    description: 'Date getPet is removed (Sunset header; 410 from then on).',
  },
  {
    option: 'trustProxy',
    flag: '--trust-proxy',
    env: 'ANIMAL_STORE_TRUST_PROXY',
    kind: 'boolean',
    description: 'Take the client address from X-Forwarded-For (the flag alone means true).',
  },
  {
    option: 'headersTimeoutMs',
    flag: '--headers-timeout-ms',
    env: 'ANIMAL_STORE_HEADERS_TIMEOUT_MS',
    kind: 'integer',
    description: 'Time allowed to receive request headers, in ms (408 after).',
  },
  {
    option: 'requestTimeoutMs',
    flag: '--request-timeout-ms',
    env: 'ANIMAL_STORE_REQUEST_TIMEOUT_MS',
    kind: 'integer',
    description: 'Time allowed to receive a whole request, in ms (408 after).',
  },
  {
    option: 'maxInFlight',
    flag: '--max-in-flight',
    env: 'ANIMAL_STORE_MAX_IN_FLIGHT',
    kind: 'integer',
    description: 'API requests in flight at once; more get an immediate 503.',
  },
  {
    option: 'maxConnections',
    flag: '--max-connections',
    env: 'ANIMAL_STORE_MAX_CONNECTIONS',
    kind: 'integer',
    description: 'Open connections at once; more are closed on arrival.',
  },
  {
    option: 'maxHeaderBytes',
    flag: '--max-header-bytes',
    env: 'ANIMAL_STORE_MAX_HEADER_BYTES',
    kind: 'integer',
    description: 'Largest request head, in bytes (431 above).',
  },
  {
    option: 'corsOrigins',
    flag: '--cors-origins',
    env: 'ANIMAL_STORE_CORS_ORIGINS',
    kind: 'origins',
    description: 'Comma-separated origins allowed by CORS (off when empty).',
  },
  {
    option: 'logLevel',
    flag: '--log-level',
    env: 'ANIMAL_STORE_LOG_LEVEL',
    kind: 'logLevel',
    description: 'info (access log), warn, error or silent.',
  },
  {
    option: 'docs',
    flag: '--docs',
    env: 'ANIMAL_STORE_DOCS',
    kind: 'boolean',
    description: 'Serve the API reference page at /docs (on or off).',
  },
  {
    option: 'compactMinRecords',
    flag: '--compact-min-records',
    env: 'ANIMAL_STORE_COMPACT_MIN_RECORDS',
    kind: 'integer',
    description: 'Compact the log once this many records are superseded (and a third of it or more).',
  },
  {
    option: 'keepAliveTimeoutMs',
    flag: '--keep-alive-timeout-ms',
    env: 'ANIMAL_STORE_KEEP_ALIVE_TIMEOUT_MS',
    kind: 'integer',
    description: 'Idle time before a kept-alive connection is closed, in ms.',
  },
  {
    limit: 'refusalsBeforeBan',
    flag: '--refusals-before-ban',
    env: 'ANIMAL_STORE_REFUSALS_BEFORE_BAN',
    kind: 'integer',
    max: MAX_REFUSALS_BEFORE_BAN,
    description: `Refusals (429) of a key tolerated within the refusal window; the next one starts a ban (1 to ${MAX_REFUSALS_BEFORE_BAN}).`,
  },
  {
    limit: 'refusalWindowMs',
    flag: '--refusal-window-ms',
    env: 'ANIMAL_STORE_REFUSAL_WINDOW_MS',
    kind: 'integer',
    max: MAX_LIMITER_PERIOD_MS,
    description: `Window a key's refusals are counted in, in ms (1 to ${MAX_LIMITER_PERIOD_MS}, a day).`,
  },
  {
    limit: 'banMs',
    flag: '--ban-ms',
    env: 'ANIMAL_STORE_BAN_MS',
    kind: 'integer',
    max: MAX_LIMITER_PERIOD_MS,
    description: `Length of a temporary ban, in ms (1 to ${MAX_LIMITER_PERIOD_MS}, a day).`,
  },
  {
    limit: 'failedAuthCapacity',
    flag: '--failed-auth-per-minute',
    env: 'ANIMAL_STORE_FAILED_AUTH_PER_MINUTE',
    kind: 'integer',
    max: MAX_FAILED_AUTH_PER_MINUTE,
    description: `Failed authentications (401) allowed per client address per minute, then 429 (1 to ${MAX_FAILED_AUTH_PER_MINUTE}).`,
  },
  {
    limit: 'maxAddresses',
    flag: '--max-addresses',
    env: 'ANIMAL_STORE_MAX_ADDRESSES',
    kind: 'integer',
    max: MAX_ADDRESSES,
    description: `Client addresses the failed-auth limit keeps, least recently used dropped first (1 to ${MAX_ADDRESSES}).`,
  },
  {
    option: 'databaseUrl',
    flag: '--database-url',
    env: 'ANIMAL_STORE_DATABASE_URL',
    kind: 'databaseUrl',
    description: 'PostgreSQL connection URI (postgres://user@host:5432/db): a store shared by every instance.',
  },
  {
    option: 'databasePoolSize',
    flag: '--database-pool-size',
    env: 'ANIMAL_STORE_DATABASE_POOL_SIZE',
    kind: 'integer',
    max: MAX_DATABASE_POOL_SIZE,
    description: 'Connections to PostgreSQL this instance keeps open at most.',
  },
  {
    option: 'redisUrl',
    flag: '--redis-url',
    env: 'ANIMAL_STORE_REDIS_URL',
    kind: 'redisUrl',
    description: 'Redis URL (redis://host:6379): rate limits shared by every instance.',
  },
  {
    option: 'redisPrefix',
    flag: '--redis-prefix',
    env: 'ANIMAL_STORE_REDIS_PREFIX',
    kind: 'string',
    description: 'Put before every Redis key, so that deployments can share one Redis.',
  },
  {
    option: 'limiterUnavailable',
    flag: '--limiter-unavailable',
    env: 'ANIMAL_STORE_LIMITER_UNAVAILABLE',
    kind: 'limiterUnavailable',
    description: 'While Redis cannot be reached: closed answers 503, open serves without limits.',
  },
  {
    option: 'metricsPort',
    flag: '--metrics-port',
    env: 'ANIMAL_STORE_METRICS_PORT',
    kind: 'port',
    description: 'Serve GET /metrics (Prometheus) on this port, a listener of its own (0 picks a free one).',
  },
  {
    option: 'metricsHost',
    flag: '--metrics-host',
    env: 'ANIMAL_STORE_METRICS_HOST',
    kind: 'string',
    description: 'Address the metrics listener binds to.',
  },
  {
    option: 'webhookRetryMs',
    flag: '--webhook-retry-ms',
    env: 'ANIMAL_STORE_WEBHOOK_RETRY_MS',
    kind: 'msList',
    description: 'Waits before each webhook retry, comma-separated ms (each ±20 %).',
  },
  {
    option: 'webhookTimeoutMs',
    flag: '--webhook-timeout-ms',
    env: 'ANIMAL_STORE_WEBHOOK_TIMEOUT_MS',
    kind: 'integer',
    max: MAX_WEBHOOK_MS,
    description: 'Longest a webhook delivery attempt may take, in ms.',
  },
  {
    option: 'webhookDisableAfterMs',
    flag: '--webhook-disable-after-ms',
    env: 'ANIMAL_STORE_WEBHOOK_DISABLE_AFTER_MS',
    kind: 'integer',
    max: MAX_WEBHOOK_MS,
    description: 'A webhook failing this long with no success is disabled, in ms.',
  },
  {
    option: 'webhookSecretOverlapMs',
    flag: '--webhook-secret-overlap-ms',
    env: 'ANIMAL_STORE_WEBHOOK_SECRET_OVERLAP_MS',
    kind: 'integer',
    max: MAX_WEBHOOK_MS,
    description: 'How long a rotated-out webhook secret still signs, in ms.',
  },
  {
    option: 'eventRetentionMs',
    flag: '--event-retention-ms',
    env: 'ANIMAL_STORE_EVENT_RETENTION_MS',
    kind: 'integer',
    max: MAX_WEBHOOK_MS,
    description: 'How long events and delivery attempts are kept, in ms.',
  },
  {
    option: 'webhookAllowPrivate',
    flag: '--webhook-allow-private',
    env: 'ANIMAL_STORE_WEBHOOK_ALLOW_PRIVATE',
    kind: 'boolean',
    description: 'Let webhooks reach loopback, private and other internal addresses.',
  },
  {
    serve: 'workers',
    flag: '--workers',
    env: 'ANIMAL_STORE_WORKERS',
    kind: 'workers',
    max: MAX_WORKERS,
    description: 'Processes serving the port (auto: one per core); more than 1 needs PostgreSQL and Redis.',
  },
];

/** Turns the text of a flag or environment variable into the setting's value; throws naming `source`. */
export function parseSettingText(setting: Setting, text: string, source: string): Settings[keyof Settings] {
  switch (setting.kind) {
    case 'port': {
      const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : Number.NaN;
      if (!(port >= 0 && port <= 65535))
        throw new TypeError(`${source} must be a port number from 0 to 65535, not "${text}"`);
      return port;
    }
    case 'integer':
      return parseIntegerText(text, source, setting.max);
    case 'msList': {
      const waits = text.split(',').map((item) => item.trim());
      if (waits.length > MAX_WEBHOOK_RETRIES || waits.some((item) => !/^[0-9]+$/.test(item)))
        throw new TypeError(
          `${source} must be at most ${MAX_WEBHOOK_RETRIES} waits in ms, comma-separated, such as 5000,300000, not "${text}"`,
        );
      return waits.map((item) => parseIntegerText(item, source, MAX_WEBHOOK_MS));
    }
    case 'workers':
      if (text === 'auto') return availableParallelism();
      if (!/^[0-9]+$/.test(text)) throw new TypeError(`${source} must be a whole number or auto, not "${text}"`);
      return parseIntegerText(text, source, setting.max);
    case 'date': {
      const value = Date.parse(text);
      if (Number.isNaN(value))
        throw new TypeError(`${source} must be a date such as 2030-12-05T00:00:00Z, not "${text}"`);
      return value;
    }
    case 'durability':
      if (text !== 'always' && text !== 'interval' && text !== 'never')
        throw new TypeError(`${source} must be always, interval or never, not "${text}"`);
      return text;
    case 'boolean':
      if (text === 'true' || text === '1' || text === 'on' || text === '') return true;
      if (text === 'false' || text === '0' || text === 'off') return false;
      throw new TypeError(`${source} must be true or false (or on or off), not "${text}"`);
    case 'logLevel':
      if (!(LOG_LEVELS as readonly string[]).includes(text))
        throw new TypeError(`${source} must be one of ${LOG_LEVELS.join(', ')}, not "${text}"`);
      return text as LogLevel;
    case 'basePath':
      if (!isBasePath(text))
        throw new TypeError(
          `${source} must look like /v1 (slash-separated segments, no trailing slash), not "${text}"`,
        );
      return text;
    case 'url':
      if (!isHttpUrl(text))
        throw new TypeError(
          `${source} must be an http or https address such as https://api.example.com/v1, not "${text}"`,
        );
      return text;
    case 'origins': {
      const origins = text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0);
      const bad = origins.find((origin) => !isOrigin(origin));
      if (bad !== undefined)
        throw new TypeError(
          `${source} must list origins such as https://app.example.com (scheme and host, no path), not "${bad}"`,
        );
      return origins;
    }
    case 'redisUrl':
      if (!isRedisUrl(text))
        throw new TypeError(`${source} must be a redis:// or rediss:// address such as redis://localhost:6379`);
      return text;
    case 'limiterUnavailable':
      if (text !== 'closed' && text !== 'open') throw new TypeError(`${source} must be closed or open, not "${text}"`);
      return text;
    case 'databaseUrl':
      if (!isDatabaseUrl(text))
        throw new TypeError(
          `${source} must be a postgres:// or postgresql:// address such as postgres://user@localhost:5432/animals`,
        );
      return text;
    case 'path':
    case 'string':
      if (text.length === 0) throw new TypeError(`${source} must not be empty`);
      return text;
  }
}

/** A URL of one of `protocols` (`postgres:`, `redis:`…); its password is never repeated in a message. */
function hasProtocol(value: unknown, protocols: readonly string[]): value is string {
  if (typeof value !== 'string') return false;
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** A PostgreSQL connection URI. */
const isDatabaseUrl = (value: unknown): value is string => hasProtocol(value, ['postgres:', 'postgresql:']);
/** A Redis URL. */
const isRedisUrl = (value: unknown): value is string => hasProtocol(value, ['redis:', 'rediss:']);

/** A base path: slash-separated segments of unreserved characters, no trailing slash ("/v1"). */
function isBasePath(value: unknown): value is string {
  return typeof value === 'string' && /^(\/[A-Za-z0-9._~-]+)+$/.test(value);
}

/** An absolute http(s) address, as OpenAPI `servers` needs (no `{variables}`: none are declared). */
function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || /[{}\s]/.test(value)) return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** Turns the text of an integer setting into a whole number from 1 to `max`; throws naming `source`. */
export function parseIntegerText(text: string, source: string, max?: number): number {
  const value = /^[1-9][0-9]{0,14}$/.test(text) ? Number(text) : Number.NaN;
  if (max !== undefined && !(value <= max))
    throw new TypeError(`${source} must be a whole number from 1 to ${max}, not "${text}"`);
  if (Number.isNaN(value)) throw new TypeError(`${source} must be a positive whole number, not "${text}"`);
  return value;
}

/**
 * Applies defaults and checks every value; a bad one throws a TypeError naming the option. A name
 * that is neither a setting nor one of `otherOptions` (those the caller handles) is a mistake, such
 * as a misspelt option that would otherwise be silently ignored: it throws naming it.
 */
export function resolveSettings(options: Partial<Settings>, otherOptions: readonly string[] = []): Settings {
  assertKnownOptions(options, [...Object.keys(DEFAULT_SETTINGS), ...otherOptions]);
  const settings: Settings = { ...DEFAULT_SETTINGS };
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined || !Object.hasOwn(DEFAULT_SETTINGS, name)) continue;
    (settings as unknown as Record<string, unknown>)[name] = value;
  }
  if (!isBasePath(settings.basePath)) {
    throw new TypeError(
      `option basePath must look like "/v1" (slash-separated segments, no trailing slash), not ${JSON.stringify(settings.basePath)}`,
    );
  }
  // The placeholder addresses follow a configured base path; addresses given are taken as they are.
  for (const name of ['publicUrl', 'stagingUrl'] as const) {
    if (options[name] === undefined) settings[name] = DEFAULT_SETTINGS[name].replace(/\/v1$/, settings.basePath);
    if (!isHttpUrl(settings[name]))
      throw new TypeError(
        `option ${name} must be an http or https address such as "https://api.example.com/v1", not ${JSON.stringify(settings[name])}`,
      );
  }
  for (const name of [
    'maxBodyBytes',
    'maxUrlBytes',
    'fsyncIntervalMs',
    'headersTimeoutMs',
    'requestTimeoutMs',
    'keepAliveTimeoutMs',
    'compactMinRecords',
    'maxInFlight',
    'maxConnections',
    'maxHeaderBytes',
    'databasePoolSize',
  ] as const) {
    if (!Number.isSafeInteger(settings[name]) || settings[name] < 1)
      throw new TypeError(`option ${name} must be a positive whole number`);
  }
  if (!Number.isSafeInteger(settings.port) || settings.port < 0 || settings.port > 65535)
    throw new TypeError('option port must be a whole number from 0 to 65535');
  if (
    settings.metricsPort !== undefined &&
    (!Number.isSafeInteger(settings.metricsPort) || settings.metricsPort < 0 || settings.metricsPort > 65535)
  )
    throw new TypeError('option metricsPort must be a whole number from 0 to 65535');
  if (typeof settings.metricsHost !== 'string' || settings.metricsHost.length === 0)
    throw new TypeError('option metricsHost must be an address such as "127.0.0.1"');
  if (!['always', 'interval', 'never'].includes(settings.durability))
    throw new TypeError('option durability must be "always", "interval" or "never"');
  for (const name of ['deprecatedAt', 'sunsetAt'] as const) {
    if (!Number.isFinite(settings[name])) throw new TypeError(`option ${name} must be a time in ms since the epoch`);
  }
  if (settings.sunsetAt <= settings.deprecatedAt)
    throw new TypeError(
      'option sunsetAt must come after deprecatedAt: an operation is removed only after it was deprecated',
    );
  if (!Array.isArray(settings.corsOrigins) || !settings.corsOrigins.every(isOrigin)) {
    throw new TypeError('option corsOrigins must be a list of origins such as ["https://app.example.com"]');
  }
  if (!LOG_LEVELS.includes(settings.logLevel))
    throw new TypeError(`option logLevel must be one of ${LOG_LEVELS.join(', ')}`);
  if (settings.databaseUrl !== undefined && !isDatabaseUrl(settings.databaseUrl)) {
    throw new TypeError(
      'option databaseUrl must be a postgres:// or postgresql:// address such as "postgres://user@localhost:5432/animals"',
    );
  }
  if (settings.redisUrl !== undefined && !isRedisUrl(settings.redisUrl)) {
    throw new TypeError('option redisUrl must be a redis:// or rediss:// address such as "redis://localhost:6379"');
  }
  if (typeof settings.redisPrefix !== 'string')
    throw new TypeError('option redisPrefix must be a string such as "animal-store:"');
  if (settings.limiterUnavailable !== 'closed' && settings.limiterUnavailable !== 'open')
    throw new TypeError('option limiterUnavailable must be "closed" or "open"');
  if (
    !Array.isArray(settings.webhookRetryMs) ||
    settings.webhookRetryMs.length > MAX_WEBHOOK_RETRIES ||
    !settings.webhookRetryMs.every((wait) => Number.isSafeInteger(wait) && wait >= 0 && wait <= MAX_WEBHOOK_MS)
  )
    throw new TypeError(`option webhookRetryMs must be a list of at most ${MAX_WEBHOOK_RETRIES} waits in ms`);
  for (const name of [
    'webhookTimeoutMs',
    'webhookDisableAfterMs',
    'webhookSecretOverlapMs',
    'eventRetentionMs',
  ] as const) {
    if (!Number.isSafeInteger(settings[name]) || settings[name] < 1 || settings[name] > MAX_WEBHOOK_MS)
      throw new TypeError(`option ${name} must be a whole number of ms from 1 to ${MAX_WEBHOOK_MS}`);
  }
  if (typeof settings.webhookAllowPrivate !== 'boolean')
    throw new TypeError('option webhookAllowPrivate must be true or false');
  if (settings.dataDir !== undefined && (typeof settings.dataDir !== 'string' || settings.dataDir.length === 0)) {
    throw new TypeError('option dataDir must be a directory path');
  }
  return settings;
}
