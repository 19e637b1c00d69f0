// CRC-32 (the zlib / IEEE 802.3 polynomial, reflected, 0xEDB88320) of a range of bytes, computed in
// place. Replay checks one record of about 90 bytes at a time; node:zlib's crc32 needs a Buffer view
// of each range and a call into native code, which cost more than the sum itself at that size: this
// table-driven form ("slicing by 8", eight table lookups per eight bytes) measured about twice as fast
// per record on a million-record log. Its results equal node:zlib's (a test compares them).

/** Eight tables of 256 entries: TABLES[k * 256 + b] is the CRC of byte b followed by k zero bytes. */
const TABLES = buildTables();

function buildTables(): Int32Array {
  const tables = new Int32Array(8 * 256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
    tables[byte] = crc;
  }
  for (let byte = 0; byte < 256; byte++) {
    for (let k = 1; k < 8; k++) {
      const previous = tables[(k - 1) * 256 + byte] as number;
      tables[k * 256 + byte] = (previous >>> 8) ^ (tables[previous & 0xff] as number);
    }
  }
  return tables;
}

/** The CRC-32 of `bytes[start, end)`, as an unsigned 32-bit number (what zlib's crc32 returns). */
export function crc32Of(bytes: Uint8Array, start: number, end: number): number {
  const t = TABLES;
  let crc = -1;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    const low =
      ((bytes[i] as number) |
        ((bytes[i + 1] as number) << 8) |
        ((bytes[i + 2] as number) << 16) |
        ((bytes[i + 3] as number) << 24)) ^
      crc;
    const high =
      (bytes[i + 4] as number) |
      ((bytes[i + 5] as number) << 8) |
      ((bytes[i + 6] as number) << 16) |
      ((bytes[i + 7] as number) << 24);
    crc =
      (t[1792 + (low & 0xff)] as number) ^
      (t[1536 + ((low >>> 8) & 0xff)] as number) ^
      (t[1280 + ((low >>> 16) & 0xff)] as number) ^
      (t[1024 + (low >>> 24)] as number) ^
      (t[768 + (high & 0xff)] as number) ^
      (t[512 + ((high >>> 8) & 0xff)] as number) ^
      (t[256 + ((high >>> 16) & 0xff)] as number) ^
      (t[high >>> 24] as number);
  }
  for (; i < end; i++) crc = (t[(crc ^ (bytes[i] as number)) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}
