// Growing typed arrays: the embedded store keeps events and pending deliveries in columns of numbers
// (8 bytes a Float64, 4 a Uint32, ...) instead of an object each (about 50 bytes before its fields), so
// a million retained events or a hundred thousand pending deliveries cost a few megabytes.

/** The typed arrays the columns use. */
export type Column = Float64Array | Uint32Array | Uint16Array | Uint8Array;

/** `column` itself when it holds `length` slots, else a copy grown by half (at least to `length`). */
export function withRoom<T extends Column>(column: T, length: number): T {
  if (length <= column.length) return column;
  const grown = new (column.constructor as new (size: number) => T)(Math.max(length, (column.length * 3) >> 1, 16));
  grown.set(column);
  return grown;
}
