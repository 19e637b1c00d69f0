// The values of every setting after defaults, as the library and the command line use them, and their
// checks when given as library options. Bad values are programmer errors: a TypeError naming the option.
// Where each setting comes from (flag, variable, meaning) is the table of setting-table.ts.
import { LOG_LEVELS, type LogLevel } from '../logging/logger.js';
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from '../webhooks/settings.js';
import { assertKnownOptions } from './option-names.js';
import { isOrigin } from './origin.js';
import {
  isBasePath,
  isDatabaseUrl,
  isHttpUrl,
  isRedisUrl,
  MAX_HSTS_MAX_AGE,
  MAX_TIMER_MS,
  MAX_WEBHOOK_MS,
  MAX_WEBHOOK_RETRIES,
} from './setting-values.js';

/** Settings of `animal-store serve` alone: how the process runs, which no library option means. */
export interface ServeOnlySettings {
  /** Processes serving the one port (node:cluster); 1 serves from the process started. */
  workers: number;
}

export const SERVE_ONLY_DEFAULTS: ServeOnlySettings = { workers: 1 };

/** The values of every setting, after defaults. */
export interface Settings {
  host: string;
  port: number;
  /** A PEM certificate (chain) file: with `tlsKey`, the port serves HTTPS, HTTP/2 and HTTP/1.1 by ALPN. */
  tlsCert: string | undefined;
  /** The PEM private key file of `tlsCert`. */
  tlsKey: string | undefined;
  /** Strict-Transport-Security max-age (seconds) sent on every answer over TLS; 0 sends none. */
  hstsMaxAge: number;
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
  /**
   * A connection whose answers have not moved for this long, in ms, is cut: a client that stops reading
   * would otherwise hold it, and the answers waiting for it, for ever (nginx's send_timeout).
   */
  sendTimeoutMs: number;
  /** The log is compacted once at least this many of its records are superseded, and half of it or more. */
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
  /** Whether this instance delivers webhooks (off: it records events and serves the API only). */
  webhookDelivery: boolean;
}

export const DEFAULT_SETTINGS: Settings = {
  host: '127.0.0.1',
  port: 8080,
  tlsCert: undefined,
  tlsKey: undefined,
  // A year: what the HSTS preload list asks for, and long enough to outlast a client's visits.
  hstsMaxAge: 31_536_000,
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
  sendTimeoutMs: 60_000,
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
  webhookDelivery: true,
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
  // A request timeout set shorter than the headers' default takes the headers' timeout down with it.
  if (
    options.headersTimeoutMs === undefined &&
    Number.isSafeInteger(settings.requestTimeoutMs) &&
    settings.requestTimeoutMs >= 1
  )
    settings.headersTimeoutMs = Math.min(DEFAULT_SETTINGS.headersTimeoutMs, settings.requestTimeoutMs);
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
    'sendTimeoutMs',
    'compactMinRecords',
    'maxInFlight',
    'maxConnections',
    'maxHeaderBytes',
    'databasePoolSize',
  ] as const) {
    if (!Number.isSafeInteger(settings[name]) || settings[name] < 1)
      throw new TypeError(`option ${name} must be a positive whole number`);
  }
  for (const name of [
    'fsyncIntervalMs',
    'headersTimeoutMs',
    'requestTimeoutMs',
    'keepAliveTimeoutMs',
    'sendTimeoutMs',
    'webhookTimeoutMs',
  ] as const) {
    if (settings[name] > MAX_TIMER_MS)
      throw new TypeError(`option ${name} must be at most ${MAX_TIMER_MS} ms, the longest a timer holds`);
  }
  // node:http refuses the pair otherwise: the headers are part of the request, and arrive within its time.
  if (settings.headersTimeoutMs > settings.requestTimeoutMs)
    throw new TypeError(
      'option headersTimeoutMs must not be longer than requestTimeoutMs: the headers are part of the request',
    );
  if (!Number.isSafeInteger(settings.port) || settings.port < 0 || settings.port > 65535)
    throw new TypeError('option port must be a whole number from 0 to 65535');
  for (const name of ['tlsCert', 'tlsKey'] as const) {
    const value = settings[name];
    if (value !== undefined && (typeof value !== 'string' || value.length === 0))
      throw new TypeError(`option ${name} must be the path of a PEM file`);
  }
  // A certificate without its key (or a key alone) cannot serve TLS: refused rather than served as plain HTTP.
  if ((settings.tlsCert === undefined) !== (settings.tlsKey === undefined)) {
    const [given, missing] = settings.tlsCert === undefined ? ['tlsKey', 'tlsCert'] : ['tlsCert', 'tlsKey'];
    throw new TypeError(`option ${given} needs ${missing} too: TLS takes a certificate and its private key`);
  }
  if (!Number.isSafeInteger(settings.hstsMaxAge) || settings.hstsMaxAge < 0 || settings.hstsMaxAge > MAX_HSTS_MAX_AGE)
    throw new TypeError(`option hstsMaxAge must be a whole number of seconds from 0 (none) to ${MAX_HSTS_MAX_AGE}`);
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
    // A Date holds at most 8.64e15 ms either side of the epoch; past that the headers would read "Invalid Date".
    if (!Number.isFinite(settings[name]) || Number.isNaN(new Date(settings[name]).getTime()))
      throw new TypeError(`option ${name} must be a time in ms since the epoch`);
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
  // A string such as "false", from a configuration read as text, would count as true.
  for (const name of ['trustProxy', 'docs', 'webhookAllowPrivate', 'webhookDelivery'] as const) {
    if (typeof settings[name] !== 'boolean') throw new TypeError(`option ${name} must be true or false`);
  }
  // An empty host would have Node listen on every interface.
  if (typeof settings.host !== 'string' || settings.host.length === 0)
    throw new TypeError('option host must be an address such as "127.0.0.1" or "::"');
  if (settings.dataDir !== undefined && (typeof settings.dataDir !== 'string' || settings.dataDir.length === 0)) {
    throw new TypeError('option dataDir must be a directory path');
  }
  return settings;
}
