// Values that a JSON Schema of the document accepts, as fast-check arbitraries: the keywords an API
// document uses (type and type lists, enum, const, properties and required, items and uniqueItems,
// length and range bounds, pattern, the date-time and uri formats, $ref, anyOf, oneOf, allOf), with
// the bounds themselves and odd but valid text (any code point, U+0000 included) among them. Whole
// numbers and free-form strings are often ids learnt from earlier answers instead.
import fc from 'fast-check';
import { anyIdPool, KnownValue } from './known-values.js';
import { dereference, isObject, type JsonSchema } from './openapi-document.js';

/** Nesting beyond which a recursive schema gets the smallest value it allows. */
const MAX_DEPTH = 4;
/** Longest generated array, whatever maxItems allows. */
const MAX_ITEMS = 4;
/** A whole-number range reaching this far is taken for one of ids. */
const ID_LIKE_MAXIMUM = 2 ** 31;

/** Where in a pool of learnt values a KnownValue picks. */
export const pickArbitrary = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

/** Characters that stores, drivers and validators are known to trip over, all of them valid in JSON text. */
const oddCharacter = fc.constantFrom(
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u200b',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ufffd',
  '\uffff',
  '\u{10ffff}',
  '\u{1f436}',
  'e\u0301',
  '"',
  '\\',
  "'",
  '%',
);

/** Well-formed strings of any code point, odd ones (U+0000 above all) much more often than by chance. */
export const anyText = (maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength }), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary', maxLength }), weight: 1 },
    { arbitrary: fc.string({ unit: 'grapheme', maxLength }), weight: 1 },
    {
      arbitrary: fc.string({ unit: fc.oneof(fc.string({ minLength: 1, maxLength: 1 }), oddCharacter), maxLength }),
      weight: 3,
    },
  );

/**
 * `candidates` kept to the values `fits` accepts. A filter that never passes would spin for ever, so a
 * candidate is kept only if a sample of it (fixed seed) fits often enough; if none does, the first
 * one is taken unfiltered (a value the schema refuses makes a request less useful, not wrong).
 */
function fitting<T>(candidates: Array<fc.WeightedArbitrary<T>>, fits: (value: T) => boolean): fc.Arbitrary<T> {
  const feasible = candidates.filter(
    ({ arbitrary }) => fc.sample(arbitrary, { seed: 1, numRuns: 40 }).filter(fits).length >= 4,
  );
  if (feasible.length === 0) return (candidates[0] as fc.WeightedArbitrary<T>).arbitrary;
  return fc.oneof(...feasible.map(({ arbitrary, weight }) => ({ arbitrary: arbitrary.filter(fits), weight })));
}

/** An arbitrary of values `schema` accepts (`root` resolves its references). */
export function validValue(root: JsonSchema, raw: unknown, depth = 0): fc.Arbitrary<unknown> {
  const schema = dereference<JsonSchema | boolean>(root, raw);
  if (schema === true || !isObject(schema)) return fc.jsonValue({ maxDepth: 2 });
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = [schema.anyOf, schema.oneOf].find(Array.isArray) as unknown[] | undefined;
  if (alternatives !== undefined) return fc.oneof(...alternatives.map((branch) => validValue(root, branch, depth)));
  if (Array.isArray(schema.allOf)) return validValue(root, mergeAll(root, schema), depth);
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type ?? inferredType(schema)];
  return fc.oneof(...types.map((type) => ofType(root, schema, String(type), depth)));
}

function ofType(root: JsonSchema, schema: JsonSchema, type: string, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integers(schema);
    case 'number':
      return fc.oneof(
        integers(schema),
        fc.double({ noNaN: true, noDefaultInfinity: true, ...bounds(schema) }).filter((n) => !Object.is(n, -0)),
      );
    case 'string':
      return strings(schema);
    case 'array':
      return arrays(root, schema, depth);
    case 'object':
      return objects(root, schema, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function bounds(schema: JsonSchema): { min?: number; max?: number } {
  return {
    ...(typeof schema.minimum === 'number' && { min: schema.minimum }),
    ...(typeof schema.maximum === 'number' && { max: schema.maximum }),
  };
}

function integers(schema: JsonSchema): fc.Arbitrary<unknown> {
  const min = Math.max(typeof schema.minimum === 'number' ? Math.ceil(schema.minimum) : -1e6, Number.MIN_SAFE_INTEGER);
  const max = Math.min(typeof schema.maximum === 'number' ? Math.floor(schema.maximum) : 1e6, Number.MAX_SAFE_INTEGER);
  const anywhere = fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number);
  const near = fc.integer({ min: 0, max: 20 }).map((offset) => Math.min(max, min + offset));
  const choices: Array<fc.WeightedArbitrary<unknown>> = [
    { arbitrary: near, weight: 3 },
    { arbitrary: fc.constantFrom(min, max), weight: 1 },
    { arbitrary: anywhere, weight: 1 },
  ];
  // A range as wide as an id's may well name one: often an id of something that exists.
  if (min >= 0 && max >= ID_LIKE_MAXIMUM)
    choices.push({
      arbitrary: pickArbitrary.map((pick) => new KnownValue(anyIdPool('integer'), pick, min)),
      weight: 4,
    });
  return fc.oneof(...choices);
}

function strings(schema: JsonSchema): fc.Arbitrary<unknown> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : 64;
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
  const fits = (text: string): boolean => {
    const length = [...text].length;
    return length >= minLength && length <= maxLength && (pattern === undefined || pattern.test(text));
  };
  if (schema.format === 'date-time')
    return fc
      .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true })
      .map((date) => date.toISOString());
  if (schema.format === 'uri' || schema.format === 'url')
    // `.invalid` never resolves (RFC 2606): a service that calls such a URL reaches nobody.
    return fc
      .tuple(fc.constantFrom('http', 'https'), fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/), fc.webPath())
      .map(([scheme, host, path]) => `${scheme}://${host}.invalid${path}`)
      .filter(fits);
  const generated = fitting(
    [
      ...(pattern === undefined ? [] : [{ arbitrary: fc.stringMatching(pattern, { size: 'small' }), weight: 1 }]),
      { arbitrary: anyText(Math.min(maxLength, 40)), weight: 3 },
      {
        arbitrary: fc.constantFrom('x'.repeat(Math.max(minLength, 1)), 'x'.repeat(Math.min(maxLength, 300))),
        weight: 1,
      },
      { arbitrary: fc.constant('\u{1f436}'.repeat(Math.min(maxLength, 300))), weight: 1 },
    ],
    fits,
  );
  const choices: Array<fc.Arbitrary<unknown>> = [generated];
  if (pattern === undefined && schema.format === undefined)
    choices.push(
      pickArbitrary.map((pick) => new KnownValue(anyIdPool('string'), pick, 'x'.repeat(Math.max(minLength, 1)))),
    );
  return fc.oneof(...choices);
}

function arrays(root: JsonSchema, schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const maxLength = Math.max(minLength, Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 8, MAX_ITEMS));
  const item = validValue(root, schema.items ?? true, depth + 1);
  if (schema.uniqueItems === true)
    return fc.uniqueArray(item, { minLength, maxLength, selector: (value) => JSON.stringify(value) });
  return fc.array(item, { minLength, maxLength: depth >= MAX_DEPTH ? minLength : maxLength });
}

function objects(root: JsonSchema, schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const members: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) members[name] = validValue(root, property, depth + 1);
  const requiredKeys = depth >= MAX_DEPTH ? required : required.filter((name) => name in members);
  return fc.record(members, { requiredKeys, noNullPrototype: true });
}

function inferredType(schema: JsonSchema): string | undefined {
  if ('properties' in schema || 'required' in schema) return 'object';
  if ('items' in schema) return 'array';
  return undefined;
}

/** allOf as one schema: properties and required lists merged (enough for an API document's use of it). */
function mergeAll(root: JsonSchema, schema: JsonSchema): JsonSchema {
  const { allOf, ...rest } = schema;
  const merged: JsonSchema = { ...rest, properties: { ...(rest.properties as object) }, required: [] };
  for (const part of [rest, ...(allOf as unknown[]).map((each) => dereference<JsonSchema>(root, each))]) {
    Object.assign(merged.properties as object, part.properties);
    (merged.required as string[]).push(...((part.required as string[] | undefined) ?? []));
    if (part.type !== undefined) merged.type = part.type;
  }
  return merged;
}
