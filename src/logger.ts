// Operational logging: JSON lines (one object per line, for log shippers), or a short human form for
// a terminal. The access log records request id, method, path (never the query: a key might be sent
// there), status, duration and key id (never the key).

export const LOG_LEVELS = ['info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** One line of the access log: never the key, never the query string (a key might be sent there). */
export interface AccessEntry {
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  keyId: string | undefined;
}

/** Where the service reports what happens to it. */
export interface Logger {
  error(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  /** One answered request; undefined when the access log is off (below `info`). */
  readonly access: ((entry: AccessEntry) => void) | undefined;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Receives each line, newline included. */
  write?: (line: string) => void;
  /** Receives the warn and error lines instead of `write` (the CLI: stderr, as README "Storage and durability" asks). */
  writeProblem?: (line: string) => void;
  /** Human-readable lines (for a terminal) instead of JSON. */
  pretty?: boolean;
  now?: () => number;
}

const RANK: Record<LogLevel, number> = { info: 20, warn: 30, error: 40, silent: 100 };

/** A logger writing lines at or above `level`. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  if (!LOG_LEVELS.includes(level))
    throw new TypeError(`log level must be one of ${LOG_LEVELS.join(', ')}, not "${String(level)}"`);
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const writeProblem = options.writeProblem ?? write;
  const now = options.now ?? Date.now;
  const pretty = options.pretty ?? false;
  // One Date per millisecond, not one per line: at tens of thousands of lines a second most share it.
  let lastMs = Number.NaN;
  let lastTime = '';
  const timeOf = (ms: number): string => {
    if (ms !== lastMs) {
      lastMs = ms;
      lastTime = new Date(ms).toISOString();
    }
    return lastTime;
  };
  const emit = (at: LogLevel, msg: string, fields: Record<string, unknown> = {}): void => {
    if (RANK[at] < RANK[level]) return;
    const time = timeOf(now());
    const out = RANK[at] >= RANK.warn ? writeProblem : write;
    if (pretty) {
      const extra = Object.entries(fields)
        .map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
        .join(' ');
      out(`${time.slice(11, 23)} ${at.toUpperCase().padEnd(5)} ${msg}${extra === '' ? '' : ` ${extra}`}\n`);
    } else {
      out(`${JSON.stringify({ time, level: at, msg, ...fields })}\n`);
    }
  };
  return {
    error: (msg, fields) => emit('error', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    access:
      RANK.info < RANK[level]
        ? undefined
        : pretty
          ? (entry) =>
              emit('info', `${entry.method} ${entry.path} ${entry.status} ${entry.durationMs}ms`, {
                key: entry.keyId ?? '-',
                id: entry.requestId,
              })
          : (entry) => write(accessLine(timeOf(now()), entry)),
  };
}

/** A logger that writes nothing, for tests; an embedding program gets the same with `logLevel: 'silent'`. */
export const QUIET_LOGGER: Logger = createLogger({ level: 'silent' });

/**
 * The JSON line of one answered request, the same text as JSON.stringify of `{time, level, msg, ...entry}`
 * gives, built by hand: it is written for every request, and this costs a fraction of copying the entry
 * into a new object and serialising it generically. Every string goes through JSON.stringify.
 */
export function accessLine(time: string, entry: AccessEntry): string {
  const keyId = entry.keyId === undefined ? '' : `,"keyId":${JSON.stringify(entry.keyId)}`;
  return (
    `{"time":"${time}","level":"info","msg":"request","requestId":${JSON.stringify(entry.requestId)},` +
    `"method":${JSON.stringify(entry.method)},"path":${JSON.stringify(entry.path)},"status":${entry.status},` +
    `"durationMs":${entry.durationMs}${keyId}}\n`
  );
}
