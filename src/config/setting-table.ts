// Every setting of the service in one table: its library option, CLI flag, environment variable,
// default and meaning. The CLI and `--help` come from it, and a test holds the README's configuration
// table to its flags and variables.
import { type LimiterOptions, MAX_REFUSALS_BEFORE_BAN } from '../limits/index.js';
import { MAX_HSTS_MAX_AGE, MAX_TIMER_MS, MAX_WEBHOOK_MS } from './setting-values.js';
import type { ServeOnlySettings, Settings } from './settings.js';

/** How a setting's text (flag or environment) becomes a value. */
type Kind =
  | 'msList'
  | 'port'
  | 'integer'
  | 'seconds'
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
  /** Largest value of an `integer` or `seconds` setting given as text; unbounded when absent. */
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
    option: 'tlsCert',
    flag: '--tls-cert',
    env: 'ANIMAL_STORE_TLS_CERT',
    kind: 'path',
    description: 'PEM certificate (chain) file: serve HTTPS, HTTP/2 and HTTP/1.1 on the port (needs --tls-key).',
  },
  {
    option: 'tlsKey',
    flag: '--tls-key',
    env: 'ANIMAL_STORE_TLS_KEY',
    kind: 'path',
    description: 'PEM private key file of --tls-cert. Both files are reloaded when they change and on SIGUSR2.',
  },
  {
    option: 'hstsMaxAge',
    flag: '--hsts-max-age',
    env: 'ANIMAL_STORE_HSTS_MAX_AGE',
    kind: 'seconds',
    max: MAX_HSTS_MAX_AGE,
    description: 'Strict-Transport-Security max-age sent over TLS, in seconds (0: no such header).',
  },
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
    max: MAX_TIMER_MS,
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
    max: MAX_TIMER_MS,
    description: 'Time allowed to receive request headers, in ms (408 after).',
  },
  {
    option: 'requestTimeoutMs',
    flag: '--request-timeout-ms',
    env: 'ANIMAL_STORE_REQUEST_TIMEOUT_MS',
    kind: 'integer',
    max: MAX_TIMER_MS,
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
    description: 'Compact the log once this many records are superseded (and half of it or more).',
  },
  {
    option: 'keepAliveTimeoutMs',
    flag: '--keep-alive-timeout-ms',
    env: 'ANIMAL_STORE_KEEP_ALIVE_TIMEOUT_MS',
    kind: 'integer',
    max: MAX_TIMER_MS,
    description: 'Idle time before a kept-alive connection is closed, in ms.',
  },
  {
    option: 'sendTimeoutMs',
    flag: '--send-timeout-ms',
    env: 'ANIMAL_STORE_SEND_TIMEOUT_MS',
    kind: 'integer',
    max: MAX_TIMER_MS,
    description:
      'A busy connection on which no byte moves for this long is cut (a client not reading its answers), in ms.',
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
    description:
      "Serve GET /metrics (Prometheus) on this port, a listener of its own (0 picks a free one); with --workers, every worker's summed.",
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
    max: MAX_TIMER_MS,
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
    option: 'webhookDelivery',
    flag: '--webhook-delivery',
    env: 'ANIMAL_STORE_WEBHOOK_DELIVERY',
    kind: 'boolean',
    description: 'Deliver webhooks from this instance (false: record events and serve the API only).',
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
