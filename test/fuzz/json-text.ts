// JSON text as a hostile client writes it: the same value spelt many ways (every character escaped,
// lone surrogates and U+0000 as `\u` escapes, `3` as `3.0` or `3e0`, white space anywhere), members
// repeated (the last one wins), and fragments no JavaScript value can hold (`1e400`, 2^53 + 1,
// nesting thousands deep), written verbatim.
import fc from 'fast-check';

/** Text written into the JSON as it is: a number JavaScript cannot hold, or a deep nest. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object written member by member, so that a name may repeat and `__proto__` is a plain member. */
export class Members {
  constructor(readonly entries: ReadonlyArray<readonly [string, unknown]>) {}
}

/** How one body is spelt. */
export interface Spelling {
  /** Every character outside printable ASCII as a `\uXXXX` escape, one per UTF-16 unit. */
  escapeAll: boolean;
  /** White space (of the four JSON allows) around every token. */
  space: string;
  /** How whole numbers are written: `3`, `3.0` or `3e0`, the same value to JSON. */
  integers: 'plain' | 'decimal' | 'exponent';
}

export const spellingArbitrary: fc.Arbitrary<Spelling> = fc.record({
  escapeAll: fc.boolean(),
  space: fc.constantFrom('', '', ' ', '\n', '\t \r\n'),
  integers: fc.constantFrom('plain', 'plain', 'decimal', 'exponent'),
});

/** The JSON text of `value` in `spelling`; undefined and functions are written as null. */
export function writeJson(value: unknown, spelling: Spelling): string {
  const s = spelling.space;
  if (value instanceof RawJson) return value.text;
  if (value instanceof Members)
    return `{${s}${value.entries.map(([name, member]) => `${writeString(name, spelling)}${s}:${s}${writeJson(member, spelling)}`).join(`${s},${s}`)}${s}}`;
  if (typeof value === 'string') return writeString(value, spelling);
  if (typeof value === 'number') return writeNumber(value, spelling);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${s}${value.map((item) => writeJson(item, spelling)).join(`${s},${s}`)}${s}]`;
  if (typeof value === 'object' && value !== null)
    return writeJson(new Members(Object.entries(value as Record<string, unknown>)), spelling);
  return 'null';
}

function writeNumber(value: number, spelling: Spelling): string {
  if (!Number.isFinite(value)) return 'null';
  if (Object.is(value, -0)) return '-0';
  if (!Number.isInteger(value) || Math.abs(value) >= 1e21) return String(value);
  if (spelling.integers === 'decimal') return `${String(value)}.0`;
  if (spelling.integers === 'exponent') return `${String(value)}e0`;
  return String(value);
}

function writeString(value: string, spelling: Spelling): string {
  // JSON.stringify already escapes controls and lone surrogates (as \udXXX); escapeAll goes further.
  if (!spelling.escapeAll) return JSON.stringify(value);
  let text = '"';
  for (let index = 0; index < value.length; index++) {
    const unit = value.charCodeAt(index);
    if (unit === 0x22) text += '\\"';
    else if (unit === 0x5c) text += '\\\\';
    else if (unit >= 0x20 && unit < 0x7f) text += value[index];
    else text += `\\u${unit.toString(16).padStart(4, '0')}`;
  }
  return `${text}"`;
}
