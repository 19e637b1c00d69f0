// What a setting's value must look like, shared by the checks of library options (settings.ts) and of
// flag and environment text (setting-text.ts).

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
export const isDatabaseUrl = (value: unknown): value is string => hasProtocol(value, ['postgres:', 'postgresql:']);
/** A Redis URL. */
export const isRedisUrl = (value: unknown): value is string => hasProtocol(value, ['redis:', 'rediss:']);

/** A base path: slash-separated segments of unreserved characters, no trailing slash ("/v1"). */
export function isBasePath(value: unknown): value is string {
  return typeof value === 'string' && /^(\/[A-Za-z0-9._~-]+)+$/.test(value);
}

/** An absolute http(s) address, as OpenAPI `servers` needs (no `{variables}`: none are declared). */
export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || /[{}\s]/.test(value)) return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * Longest time a setting that runs a timer may name, in ms: 2^31 − 1 (about 24.8 days), the most a
 * Node timer holds; a longer one would fire at once.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** Longest webhook time setting, in ms: a year, far past any schedule, and safe to add to a timestamp. */
export const MAX_WEBHOOK_MS = 366 * 86_400_000;
/** Most webhook retries: the default schedule has seven. */
export const MAX_WEBHOOK_RETRIES = 100;

/** Largest Strict-Transport-Security max-age settable, in seconds: ten years, far past any advice. */
export const MAX_HSTS_MAX_AGE = 10 * 31_536_000;
