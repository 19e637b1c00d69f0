// Input no well-behaved client sends, as fast-check arbitraries: odd Unicode (U+0000, lone surrogates,
// byte order marks, line separators), numbers JavaScript cannot hold, nesting thousands deep within the
// body limit, bodies just over it, mutations of a valid body (a member replaced, dropped, added,
// repeated), bytes that are not JSON, and path segments, query values and header values of every shape.
import fc from 'fast-check';
import { Members, RawJson } from './json-text.js';
import type { JsonSchema } from './openapi-document.js';

/** The body limit the service documents (64 KiB); nests stay under it, oversized bodies go past it. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** Strings a validator must not trip over. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'Rex\u0000',
    '\u0000\u0000\u0000',
    '\ud800',
    'a\udc00b',
    '\udfff\ud800',
    '\ufeff',
    '\u2028\u2029',
    '\u00a0\u3000',
    '\u200b',
    'e\u0301',
    '\u{1f436}'.repeat(201),
    'x'.repeat(201),
    'x'.repeat(5000),
    '__proto__',
    '<script>',
    "'; DROP TABLE pets; --",
    '%00',
    '\\',
  ),
  // Any UTF-16 units at all: lone surrogates, controls and U+0000 among them.
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)), maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

/** Numbers spelt in ways a parser may mishandle, and values on either side of every bound. */
export const hostileNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    new RawJson('1e400'),
    new RawJson('-1e400'),
    new RawJson('1e-400'),
    new RawJson('9007199254740993'),
    new RawJson(`1${'0'.repeat(400)}`),
    new RawJson('123456789012345678901234567890.5'),
    new RawJson('-0'),
    new RawJson('0e0'),
    new RawJson('1E2'),
    new RawJson('1.0000000000000001'),
  ),
  fc.constantFrom(0, -1, 1.5, 2 ** 53, 2 ** 53 - 1, 2 ** 31, -(2 ** 31), Number.MAX_VALUE, Number.MIN_VALUE, 101),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Arrays or objects nested `depth` deep, as raw text that stays under the body limit. */
export const deepNest: fc.Arbitrary<RawJson> = fc.oneof(
  fc.integer({ min: 64, max: 30_000 }).map((depth) => new RawJson(`${'['.repeat(depth)}${']'.repeat(depth)}`)),
  fc.integer({ min: 64, max: 10_000 }).map((depth) => new RawJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)),
);

/** Any hostile JSON value. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hostileNumber,
  deepNest,
  fc.constantFrom(null, true, false, [], {}, ['available'], { $ref: '#' }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Member names a validator or a store may mishandle. */
export const hostileName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'id', '', 'toString', 'hasOwnProperty', '\u0000', '\ud800'),
  fc.string({ maxLength: 8 }),
);

/** A valid object changed in one way: a member replaced, dropped, added, or repeated. */
export function mutated(valid: fc.Arbitrary<unknown>, schema: JsonSchema | undefined): fc.Arbitrary<unknown> {
  const names = Object.keys((schema?.properties as object | undefined) ?? {});
  const name = names.length > 0 ? fc.oneof(fc.constantFrom(...names), hostileName) : hostileName;
  return fc.tuple(valid, name, hostileValue, fc.nat(3)).map(([value, member, replacement, how]) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return replacement;
    const entries = Object.entries(value);
    switch (how) {
      case 0:
        return new Members([...entries.filter(([each]) => each !== member), [member, replacement]]);
      case 1:
        return new Members(entries.filter(([each]) => each !== member));
      case 2:
        // The member repeated with a hostile value first: the last one wins, and it is valid.
        return new Members([[member, replacement], ...entries]);
      default:
        // Repeated with the hostile value last: it wins.
        return new Members([...entries, [member, replacement]]);
    }
  });
}

/** Bodies that are not JSON, or not only JSON, or over the limit. */
export const brokenBody: fc.Arbitrary<Buffer> = fc.oneof(
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  fc
    .constantFrom(
      '',
      ' ',
      '\ufeff{}',
      '{',
      '{"a":1}{"a":2}',
      '{"a":1} x',
      '{"a":1,}',
      "{'a':1}",
      '{"a":NaN}',
      '{"a":Infinity}',
      '{"a":"\\ud800"}',
      '{"a":"\u0000"}',
      '/* comment */ {}',
      '{"a":"\\x41"}',
      'null',
      '"just a string"',
    )
    .map((text) => Buffer.from(text)),
  // Invalid UTF-8 inside a string, and a body just over the limit.
  fc.constant(Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc0, 0x80]), Buffer.from('"}')])),
  fc.constant(Buffer.from(`{"name":"${'x'.repeat(BODY_LIMIT_BYTES)}"}`)),
);

/** Path segments that are not a valid value of any parameter, written as a client could send them. */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('0', '01', '+1', '-1', '1.5', '1e3', '0x10', 'abc', '%31', '%20%31', '..', '.', '%2e%2e', '%00', '%'),
  fc.constantFrom('9007199254740992', '9007199254740991', '1'.repeat(40), 'wh_', 'evt_0', '%ED%A0%80', '%FF'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }).map((text) => encodeURIComponent(text)),
);

/** Query values, percent-encoded as sent: odd text, invalid UTF-8, U+0000, numbers of every spelling. */
export const hostileQueryValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', '0', '01', '+1', '-1', '1e1', '101', '1.5', '%00', '%FF', '%ED%A0%80', '%', 'a%2', '+', '%2B1'),
  fc.string({ unit: 'binary', maxLength: 12 }).map((text) => encodeURIComponent(text)),
);

/** Header values (what an HTTP client can send: tab, printable ASCII and Latin-1 bytes). */
export const hostileHeaderValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', ' ', 'a b', 'x'.repeat(256), 'x'.repeat(255), '\u00ff\u00e9', '\t', '"quoted"', 'null'),
  // U+007F is the one character in this range a client may not send in a field value.
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0xff }).map((code) => String.fromCharCode(code === 0x7f ? 0x80 : code)),
    maxLength: 40,
  }),
);
