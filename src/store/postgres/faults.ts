// Which failures of PostgreSQL mean "the database cannot take work now" (the server down or restarting,
// the connection lost, a statement over its time limit, no connection free in time) as opposed to a
// mistake in a statement. The first kind is answered 503 with Retry-After, so that clients retry; the
// second is a bug, answered 500 and logged.
import { ApiError } from '../../core/errors.js';

/** Whole seconds a client is asked to wait while the database is away. */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/**
 * SQLSTATE classes and codes of a server that cannot serve now (PostgreSQL's "Errcodes" appendix):
 * 08 connection exception, 53 insufficient resources, 57P01-57P05 shutdown and crash recovery,
 * 57014 a statement cancelled by statement_timeout, 40001/40P01 serialization failure and deadlock
 * (a retry succeeds), 25006 a read-only server (a standby during failover).
 */
const UNAVAILABLE_CODES = new Set(['57014', '57P01', '57P02', '57P03', '57P04', '57P05', '40001', '40P01', '25006']);
const UNAVAILABLE_CLASSES = ['08', '53'];

/** Socket-level errors of the client library: the server or the network is away. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** Messages of node-postgres for a connection that ended or could not be had in time. */
const CLIENT_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error',
  'Client was closed',
  'connection timeout',
];

/** Whether `error` says the database cannot take work now (rather than that a statement is wrong). */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_CODES.has(code) || NETWORK_CODES.has(code)) return true;
    if (code.length === 5 && UNAVAILABLE_CLASSES.includes(code.slice(0, 2))) return true;
  }
  if (error instanceof AggregateError) return error.errors.some(isUnavailable);
  return CLIENT_MESSAGES.some((text) => error.message.includes(text));
}

/** The 503 a request gets while the database is away. */
export function unavailableError(): ApiError {
  return new ApiError(
    'unavailable',
    'The database cannot be reached right now; retry after the number of seconds in the Retry-After header',
    undefined,
    { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS },
  );
}

/** Runs `work`; a failure that means the database is away becomes the 503 of `unavailableError`. */
export async function orUnavailable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw isUnavailable(error) ? unavailableError() : error;
  }
}

/** A database address for messages: host, port and database, never the user's password. */
export function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname === '' ? 'the local socket' : parsed.host || parsed.hostname;
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || '(default database)';
    return `postgres://${host.includes(':') ? host : `${host}:5432`}/${database}`;
  } catch {
    return 'the configured PostgreSQL address';
  }
}
