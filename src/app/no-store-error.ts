// A place that was expected to hold a store and holds none: most likely a mistyped data directory. The
// message says what is missing; the caller adds what to do, in its own terms (a flag, an option).

/** The place named holds no animal store. */
export class NoStoreError extends Error {
  override name = 'NoStoreError';
}
