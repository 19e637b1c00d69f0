// What counts as a web origin here (RFC 6454 section 4): a scheme and host (and port), no path. The
// CORS allow-list and the settings that take origins share this one check.
/** A CORS origin: scheme and host (and port), nothing else. */
export function isOrigin(value: unknown): value is string {
  return typeof value === 'string' && /^https?:\/\/[^/\s]+$/.test(value);
}
