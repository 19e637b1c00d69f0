// Operational logging: JSON lines (one object per line, for log shippers), or a short human form for
// a terminal. The access log records request id, method, path (never the query: a key might be sent
// there), status, duration and key id (never the key).
import { LineBuffer } from './line-buffer.js';

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
  /** Receives each line, newline included; by default each line goes to stderr as it ends. */
  write?: (line: string) => void;
  /** Gathers the lines instead of `write` (the CLI: stdout, written within 20 ms; see line-buffer.ts). */
  lines?: LineBuffer;
  /** Receives the warn and error lines instead of `write` (the CLI: stderr, as docs/storage.md asks). */
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
  if (options.write !== undefined && options.lines !== undefined)
    throw new TypeError('a logger takes either write or lines, not both');
  const { write } = options;
  const lines =
    options.lines ??
    new LineBuffer(
      write === undefined ? (chunk) => process.stderr.write(chunk) : (chunk) => write(chunk.toString('utf8')),
      { batched: false },
    );
  const writeLine = (line: string): void => lines.writeText(line);
  const writeProblem = options.writeProblem ?? writeLine;
  const now = options.now ?? Date.now;
  const pretty = options.pretty ?? false;
  const timeOf = isoTimeCache();
  const emit = (at: LogLevel, msg: string, fields: Record<string, unknown> = {}): void => {
    if (RANK[at] < RANK[level]) return;
    const time = timeOf(now());
    const out = RANK[at] >= RANK.warn ? writeProblem : writeLine;
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
          : accessLogWriter(lines, now, timeOf),
  };
}

/** A logger that writes nothing, for tests; an embedding program gets the same with `logLevel: 'silent'`. */
export const QUIET_LOGGER: Logger = createLogger({ level: 'silent' });

/**
 * `toISOString` of a time in ms, formed from the text of its second: one Date is formatted per
 * second rather than per millisecond, since at tens of thousands of lines a second most lines share
 * a second. The last millisecond's text is kept too.
 */
export function isoTimeCache(): (ms: number) => string {
  let lastMs = Number.NaN;
  let lastTime = '';
  let secondMs = Number.NaN;
  /** The second's text without its milliseconds: "2026-11-24T18:00:05." */
  let secondText = '';
  return (ms) => {
    if (ms === lastMs) return lastTime;
    lastMs = ms;
    const wholeMs = Math.floor(ms);
    const milli = wholeMs % 1000;
    // Before 1970 a Date truncates toward zero where floor rounds down, and a time that is not
    // a finite number has no text of its own: both are rare enough to format in full.
    if (!(wholeMs >= 0)) {
      lastTime = new Date(ms).toISOString();
      return lastTime;
    }
    if (wholeMs - milli !== secondMs) {
      secondMs = wholeMs - milli;
      secondText = new Date(secondMs).toISOString().slice(0, -4);
    }
    lastTime = `${secondText}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
    return lastTime;
  };
}

/**
 * A string as a JSON string literal: the same text as JSON.stringify gives. Most strings in a log
 * line (ids, methods, paths) need no escape, and a scan of their characters costs less than the
 * generic serialiser; anything that needs one (a quote, a backslash, a control character, half of a
 * surrogate pair) goes to JSON.stringify.
 */
export function jsonString(text: string): string {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x22 /* " */ || code === 0x5c /* \ */ || (code >= 0xd800 && code <= 0xdfff))
      return JSON.stringify(text);
  }
  return `"${text}"`;
}

/** Access lines kept aside at most before they are formed (about 12 KB of text); 32 and 256 cost the same. */
const MAX_KEPT_LINES = 64;

/**
 * The access log: one JSON line per answered request, the same text as JSON.stringify of
 * `{time, level, msg, ...entry}` gives, built by hand.
 *
 * A request only keeps its entry and its time aside; the kept lines are formed together when the
 * buffer is written (LineBuffer.formLinesWith), or once MAX_KEPT_LINES are kept, in one loop whose
 * code and data stay in the processor's caches from line to line, rather than being fetched again
 * between the other steps of each request. Measured on two processes serving `get` side by side, this
 * and the writes gathered over a period (line-buffer.ts) took the access log from about 14 % of a
 * request's CPU time to about 7 %.
 *
 * The parts that repeat from line to line are kept: the opening up to the request id (it changes once
 * a millisecond), and the ending from the key id on (one key sends most requests).
 */
export function accessLogWriter(
  lines: LineBuffer,
  nowMs: () => number,
  timeText: (ms: number) => string,
): (entry: AccessEntry) => void {
  const entries: AccessEntry[] = [];
  const times: number[] = [];
  let openingTime: string | undefined;
  let opening = '';
  let endingKeyId: string | undefined | null = null;
  let ending = '';
  lines.formLinesWith(() => {
    let text = '';
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index] as AccessEntry;
      const now = timeText(times[index] as number);
      if (now !== openingTime) {
        openingTime = now;
        opening = `{"time":"${now}","level":"info","msg":"request","requestId":`;
      }
      if (entry.keyId !== endingKeyId) {
        endingKeyId = entry.keyId;
        ending = entry.keyId === undefined ? '}\n' : `,"keyId":${jsonString(entry.keyId)}}\n`;
      }
      text +=
        `${opening}${jsonString(entry.requestId)},"method":${jsonString(entry.method)},"path":${jsonString(entry.path)},` +
        `"status":${entry.status},"durationMs":${millisecondsText(entry.durationMs)}${ending}`;
    }
    entries.length = 0;
    times.length = 0;
    return text;
  });
  return (entry) => {
    entries.push(entry);
    times.push(nowMs());
    if (entries.length >= MAX_KEPT_LINES) lines.flush();
    else lines.linePending();
  };
}

/**
 * The JSON text of a duration in ms, `String(ms)`, formed from whole microseconds when it has at most
 * three decimals (as the access log rounds it): integers format several times faster than a
 * fraction does, and this runs for every request. Below 10^9 ms a decimal of three places or fewer
 * is its own shortest round-trip form, so the text is the same; anything else is left to String.
 */
export function millisecondsText(ms: number): string {
  const micros = Math.round(ms * 1000);
  if (!(micros >= 0 && micros < 1e12) || micros / 1000 !== ms) return String(ms);
  const whole = Math.floor(micros / 1000);
  let fraction = micros - whole * 1000;
  if (fraction === 0) return `${whole}`;
  let places = 3;
  while (fraction % 10 === 0) {
    fraction /= 10;
    places--;
  }
  // The fraction has `places` digits once its leading zeros are added back.
  return `${whole}.${String(fraction).padStart(places, '0')}`;
}
