// `animal-store serve`: flags and ANIMAL_STORE_* variables → createAnimalStore → listen, until a signal.
import cluster from 'node:cluster';
import { createServer } from 'node:net';
import { openAnimalStore } from '../app/create-animal-store.js';
import { describeBackends } from '../app/describe-backends.js';
import { type Setting, SETTINGS } from '../config/setting-table.js';
import { parseIntegerText, parseSettingText } from '../config/setting-text.js';
import { DEFAULT_SETTINGS, SERVE_ONLY_DEFAULTS, type ServeOnlySettings, type Settings } from '../config/settings.js';
import { type KeySpec, parseKeysVariable } from '../keys/configured-keys.js';
import { KEYS_RELOAD_SIGNAL } from '../keys/service-keys.js';
import { type LimiterOptions, resolveLimiterOptions } from '../limits/index.js';
import { LineBuffer } from '../logging/line-buffer.js';
import { createLogger } from '../logging/logger.js';
import { TLS_RELOAD_SIGNAL } from '../tls/tls-certificates.js';
import { readTlsPair, TlsFileError } from '../tls/tls-pair.js';
import { type ListeningMessage, runPrimary, workersRefusal } from './cluster.js';
import { EXIT_CODES_HELP, parseCommandArgs } from './flags.js';
import { stopWithParentUnderNpm } from './follow-parent.js';
import { asUsage, dataDirUsageError, UsageError } from './usage-error.js';

/** The CLI keeps its data in ./data unless told otherwise. */
const DEFAULT_DATA_DIR = './data';

/** Defaults as `animal-store serve` applies them: the library's, but for the data directory and the log level. */
const SERVE_DEFAULTS: Settings = { ...DEFAULT_SETTINGS, dataDir: DEFAULT_DATA_DIR, logLevel: 'info' };

/** A setting's default as a person would type it; undefined for one that is off unless set (--database-url). */
function defaultText(setting: Setting): string | undefined {
  if ('limit' in setting) return String(resolveLimiterOptions()[setting.limit]);
  if ('serve' in setting) return String(SERVE_ONLY_DEFAULTS[setting.serve]);
  const value = SERVE_DEFAULTS[setting.option];
  if (value === undefined) return undefined;
  if (setting.kind === 'date' && typeof value === 'number') return new Date(value).toISOString().slice(0, 10);
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(',');
  return String(value);
}

/** The bracket after a setting's description: its variable, and its default when it has one. */
function variableAndDefault(setting: Setting): string {
  const value = defaultText(setting);
  return `[${setting.env}${value === undefined ? '' : `; default ${value}`}]`;
}

/** `--flag VALUE`, `--trust-proxy [true|false]` for a yes/no flag, `--durability always|interval|never` for a choice. */
function flagUsage(setting: Setting): string {
  if (setting.kind === 'boolean') return `${setting.flag} [true|false]`;
  if (setting.kind === 'durability') return `${setting.flag} always|interval|never`;
  if (setting.kind === 'logLevel') return `${setting.flag} LEVEL`;
  if (setting.kind === 'workers') return `${setting.flag} N|auto`;
  return `${setting.flag} VALUE`;
}

export const SERVE_HELP = `Usage: animal-store serve [options]

Serves the animal store API. Every option can also be set by its environment variable.

Options:
${SETTINGS.map(
  (setting) => `  ${flagUsage(setting).padEnd(34)} ${setting.description} ${variableAndDefault(setting)}`,
).join('\n')}
  ${'-h, --help'.padEnd(34)} Show this help.
  ${'--version'.padEnd(34)} Print the version.

Keys: ANIMAL_STORE_KEYS=KEY:PLAN,KEY:enterprise:PER_MINUTE:PER_DAY adds keys besides data/keys.json.
Signals: SIGTERM, SIGINT (Ctrl-C) and SIGHUP (the terminal closed) stop gracefully; ${KEYS_RELOAD_SIGNAL} reloads
data/keys.json and the TLS files (both are also watched). With --workers, signal the primary (the process
started): it passes ${KEYS_RELOAD_SIGNAL} on to every worker.

Examples:
  animal-store serve
  animal-store serve --port 9000 --host 0.0.0.0 --data-dir /var/lib/animal-store
  ANIMAL_STORE_KEYS=my-long-secret-key-123:pro animal-store serve --durability interval

${EXIT_CODES_HELP}
`;

/** Reads flags and environment into createAnimalStore options; a bad one throws a TypeError naming it. */
export function serveOptions(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): Partial<Settings> & ServeOnlySettings & { keys: KeySpec[]; limits: LimiterOptions; help: boolean } {
  const flags: Record<string, { type: 'string' }> = {};
  for (const setting of SETTINGS) flags[setting.flag.slice(2)] = { type: 'string' };
  const parsed = parseCommandArgs(withBareSwitches(argv), flags, 'animal-store serve', false);
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const options: Partial<Settings> = { dataDir: DEFAULT_DATA_DIR, logLevel: 'info' };
  const limits: LimiterOptions = {};
  const serveOnly: ServeOnlySettings = { ...SERVE_ONLY_DEFAULTS };
  for (const setting of SETTINGS) {
    const flag = values[setting.flag.slice(2)];
    const text = typeof flag === 'string' ? flag : env[setting.env];
    if (text === undefined) continue;
    const source = typeof flag === 'string' ? setting.flag : setting.env;
    if ('limit' in setting) limits[setting.limit] = parseIntegerText(text, source, setting.max);
    else if ('serve' in setting) serveOnly[setting.serve] = parseSettingText(setting, text, source) as number;
    else (options as Record<string, unknown>)[setting.option] = parseSettingText(setting, text, source);
  }
  // With PostgreSQL and Redis nothing is kept in a data directory, so none is used unless it is named.
  // The in-memory limiter (beside PostgreSQL too) saves its day buckets and bans in ./data by default,
  // as on the embedded store, so that a graceful restart does not hand every key a fresh day.
  const backends = describeBackends(options);
  if (
    !backends.storeInDataDir &&
    backends.sharedLimits &&
    values['data-dir'] === undefined &&
    env.ANIMAL_STORE_DATA_DIR === undefined
  )
    options.dataDir = undefined;
  return {
    ...options,
    ...serveOnly,
    keys: parseKeysVariable(env.ANIMAL_STORE_KEYS ?? ''),
    limits,
    help: values.help === true,
  };
}

const SWITCHES = new Set(SETTINGS.filter((setting) => setting.kind === 'boolean').map((setting) => setting.flag));

/** A yes/no flag given alone (`--trust-proxy`, last or before another flag) means `--trust-proxy=true`. */
function withBareSwitches(argv: readonly string[]): string[] {
  return argv.map((arg, index) => {
    const next = argv[index + 1];
    return SWITCHES.has(arg) && (next === undefined || next.startsWith('--')) ? `${arg}=true` : arg;
  });
}

/** The signals that stop the service: a terminal closing (SIGHUP) stops it like Ctrl-C (SIGINT) and SIGTERM. */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
/** The signal that reloads the keys file: the one the keys file names when it can no longer be watched. */
const RELOAD_SIGNAL = KEYS_RELOAD_SIGNAL;

/** Runs the service until a stop signal: in this process, or in `--workers` processes under this one. */
export async function runServe(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  print: (text: string) => void,
): Promise<void> {
  const { help, workers, ...options } = asUsage(() => serveOptions(argv, env), 'animal-store serve');
  if (help) {
    print(SERVE_HELP);
    return;
  }
  // Refused before anything is opened or forked.
  const refusal = workersRefusal(workers, describeBackends(options));
  if (refusal !== undefined) throw new UsageError(refusal);
  // JSON lines on stdout for log shippers; a short human form when a person watches a terminal.
  // Warnings and errors (a torn log tail, a stale lock taken over, a failed write) on stderr, so that
  // they stand out from the access log.
  // The access log is written in batches, within 20 ms (see line-buffer.ts).
  const stdout = new LineBuffer((chunk) => process.stdout.write(chunk));
  const logger = createLogger({
    level: options.logLevel ?? 'info',
    lines: stdout,
    writeProblem: (line) => process.stderr.write(line),
    pretty: process.stdout.isTTY === true,
  });
  // The port is tried before the data directory is touched: a start that cannot listen must not leave
  // a first key behind that nobody was shown (nothing is left half-created). A worker's primary tried it.
  if (cluster.isPrimary) await tryPort(options.port ?? DEFAULT_SETTINGS.port, options.host ?? DEFAULT_SETTINGS.host);
  // And the metrics port likewise, so that its failure names its own flags.
  if (cluster.isPrimary && options.metricsPort !== undefined)
    await tryPort(options.metricsPort, options.metricsHost ?? DEFAULT_SETTINGS.metricsHost, METRICS_FLAGS);
  if (cluster.isPrimary && workers > 1) {
    // Checked here too, so that a bad certificate stops the start with its one line rather than with
    // every worker failing in turn.
    if (options.tlsCert !== undefined && options.tlsKey !== undefined)
      await readTlsPair({ certPath: options.tlsCert, keyPath: options.tlsKey }).catch((error: unknown) => {
        throw error instanceof TlsFileError ? new UsageError(error.message) : error;
      });
    // The primary owns the metrics port and answers each scrape with every worker's metrics summed,
    // opened before any worker starts, so that a port in use stops the start as the API's does.
    if (options.metricsPort !== undefined) {
      const metricsUrl = await listenClusterMetrics(
        options.metricsPort,
        options.metricsHost ?? DEFAULT_SETTINGS.metricsHost,
      );
      logger.info(`metrics on ${metricsUrl} (every worker's, summed by the primary)`);
    }
    const primary = runPrimary({
      workers,
      log: { info: (line) => logger.info(line), warn: (line) => logger.warn(line) },
      print,
      signals: STOP_SIGNALS,
      relay: [...new Set<NodeJS.Signals>([RELOAD_SIGNAL, TLS_RELOAD_SIGNAL])],
    });
    stopWithParentUnderNpm(env, (line) => logger.warn(line), primary.stop);
    const code = await primary.exited;
    if (code === 0) print(`animal-store stopped: all ${workers} workers drained\n`);
    stdout.flush();
    process.exit(code);
  }
  const hooks = cluster.isWorker ? { metricsToPrimary: process } : {};
  const app = await openAnimalStore({ ...options, logger, createFirstKey: true }, hooks).catch((error: unknown) => {
    if (error instanceof TypeError)
      throw new UsageError(`${inCommandLineTerms(error.message)} (see animal-store serve --help)`);
    if (error instanceof TlsFileError) throw new UsageError(error.message);
    throw (options.dataDir === undefined ? undefined : dataDirUsageError(error, options.dataDir)) ?? error;
  });
  let address: Awaited<ReturnType<typeof app.listen>>;
  try {
    address = await app.listen();
  } catch (error) {
    // Taken between the trial and now: rare, and then the first key (if one was made) is in keys.json unseen.
    await app.close();
    throw listenUsageError(error, app.settings.port, app.settings.host);
  }
  const { apiUrl, metricsUrl } = address;
  if (metricsUrl !== undefined) logger.info(`metrics on ${metricsUrl}`);
  // One write, so that whoever reads the output (a script, a test) sees the first key with the address.
  const firstKeyNote =
    app.firstKey === undefined
      ? ''
      : `\nCreated a first API key (free plan). It is shown only this once; only its hash is kept:\n\n  ${app.firstKey}\n\n` +
        `Try it:\n\n  curl -H "Authorization: Bearer ${app.firstKey}" ${apiUrl}/pets\n\n`;
  // The directory in full, so the line says where the data is whatever the working directory was.
  const listening = `animal-store listening on ${apiUrl} (data in ${describeBackends(app.settings).dataPlace})\n${firstKeyNote}`;
  const who = cluster.isWorker ? `animal-store worker pid ${process.pid}` : 'animal-store';
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    const drained = app.inFlight();
    app.close().then(
      () => {
        const saved = describeBackends(app.settings).durable ? ', data saved' : '';
        print(`${who} stopped: ${drained} ${drained === 1 ? 'request' : 'requests'} drained${saved}\n`);
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`${who}: error while stopping: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  for (const signal of STOP_SIGNALS) process.on(signal, stop);
  // Under npx a shell between npm and the service dies of the SIGTERM npm relays (see follow-parent.ts).
  stopWithParentUnderNpm(env, (line) => logger.warn(line), stop);
  // Logged either way (success at info, failure at error), so an operator who sent the signal sees the outcome; a bad file keeps the keys in force.
  process.on(RELOAD_SIGNAL, () => {
    app.reloadKeys().then(
      () => logger.info(`keys file reloaded on ${RELOAD_SIGNAL}`),
      (error: unknown) =>
        logger.error(
          `keys file not reloaded on ${RELOAD_SIGNAL}, the keys in force are kept: ${(error as Error).message}`,
        ),
    );
  });
  if (app.settings.tlsCert !== undefined) {
    process.on(TLS_RELOAD_SIGNAL, () => {
      app.reloadTls().then(
        (outcome) =>
          logger.info(
            `TLS files read on ${TLS_RELOAD_SIGNAL}: ${outcome === 'reloaded' ? 'new connections get the new certificate' : 'unchanged'}`,
          ),
        (error: unknown) =>
          logger.error(
            `TLS certificate not reloaded on ${TLS_RELOAD_SIGNAL}, the one in force is kept: ${(error as Error).message}`,
          ),
      );
    });
  }
  // Said only once the signal handlers are in place: a signal sent the moment the line is read (a
  // supervisor, a test, a quick Ctrl-C) would otherwise meet the default action and kill the process
  // without a graceful stop. A worker's primary prints the line once every worker listens.
  if (cluster.isWorker) process.send?.({ animalStore: 'listening', text: listening } satisfies ListeningMessage);
  else print(listening);
}

/** Opens the primary's metrics port, serving the sum of every worker's metrics; resolves with its address. */
async function listenClusterMetrics(port: number, host: string): Promise<string> {
  // Loaded only when metrics are asked for, as in a single process: prom-client stays out otherwise.
  const { ClusterMetrics } = await import('../metrics/cluster-metrics.js');
  const { listenMetrics } = await import('../metrics/metrics-listener.js');
  const metrics = new ClusterMetrics({
    workers: () => Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined),
  });
  cluster.on('message', (worker, message: unknown) => metrics.heard(worker.id, message));
  cluster.on('exit', (worker) => metrics.retire(worker.id));
  try {
    return (await listenMetrics(metrics, port, host)).url;
  } catch (error) {
    throw listenUsageError(error, port, host, METRICS_FLAGS);
  }
}

/** Flags by the library's option names (`requestTimeoutMs`, `limits.banMs`), for messages about options. */
const FLAG_OF_OPTION: ReadonlyMap<string, string> = new Map(
  SETTINGS.map((setting) => [
    'option' in setting ? setting.option : 'limit' in setting ? `limits.${setting.limit}` : setting.serve,
    setting.flag,
  ]),
);

/**
 * A library option's message said as the command line says it: `option tlsCert needs tlsKey too`
 * becomes `--tls-cert needs --tls-key too`, and `option keys key 2` is `ANIMAL_STORE_KEYS entry 2`.
 * A bare word is taken for an option name only in camelCase, so that "host" or "port" in a sentence stay.
 */
export function inCommandLineTerms(message: string): string {
  return message
    .replace(/\boption keys key (\d+)/g, 'ANIMAL_STORE_KEYS entry $1')
    .replace(
      /\b(option )?((?:limits\.)?[a-z]+(?:[A-Z][a-z]*)*)\b/g,
      (words: string, option: string | undefined, name: string) => {
        const flag = FLAG_OF_OPTION.get(name);
        return flag !== undefined && (option !== undefined || /[A-Z.]/.test(name)) ? flag : words;
      },
    );
}

/** The flags that set the metrics listener's address, named when it cannot listen. */
const METRICS_FLAGS = { port: '--metrics-port', host: '--metrics-host' };

/** Binds and releases `port` on `host`, so that a port in use or refused is found before anything is created. */
async function tryPort(port: number, host: string, flags?: { port: string; host: string }): Promise<void> {
  // Port 0 is tried too: it still finds a host that is not this machine's or cannot be resolved.
  const trial = createServer();
  await new Promise<void>((done, fail) => {
    trial.once('error', fail);
    trial.listen({ port, host, exclusive: true }, done);
  }).catch((error: unknown) => {
    throw listenUsageError(error, port, host, flags);
  });
  await new Promise((done) => trial.close(done));
}

/** A listen failure the operator can fix, as one line naming the flags to change; anything else as it is. */
function listenUsageError(
  error: unknown,
  port: number,
  host: string,
  flags: { port: string; host: string } = { port: '--port', host: '--host' },
): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return new UsageError(`port ${port} is in use; stop the other server or pass ${flags.port} with a free port`);
  if (code === 'EACCES') return new UsageError(`no permission to listen on port ${port}; use a port above 1023`);
  if (code === 'EADDRNOTAVAIL')
    return new UsageError(`address ${host} is not on this machine; pass ${flags.host} with a local address`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new UsageError(
      `host ${host} cannot be resolved to an address; pass ${flags.host} with a local address or name`,
    );
  return error;
}
