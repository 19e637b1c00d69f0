// Requests for one operation of the document, as fast-check arbitraries: path parameters (mostly ids
// that exist), query parameters (valid, learnt, hostile, repeated, unknown), the credential, the media
// type, the operation's header parameters (an Idempotency-Key: new, repeated from an earlier request,
// malformed, sent twice), a request id, and a body (valid in many spellings, one member broken, hostile,
// not JSON, over the limit; now and then a body where none is expected). A draft becomes bytes to send
// only when it is sent (materialize), when learnt values are chosen.
import fc from 'fast-check';
import {
  brokenBody,
  hostileHeaderValue,
  hostileQueryValue,
  hostileSegment,
  hostileValue,
  mutated,
} from './hostile-arbitrary.js';
import { type Spelling, spellingArbitrary, writeJson } from './json-text.js';
import { headerPool, idPool, KnownValue, type KnownValues, linkPool, queryPool } from './known-values.js';
import { dereference, type ApiDocument, type JsonSchema, type Operation } from './openapi-document.js';
import { pickArbitrary, validValue } from './schema-arbitrary.js';

/** A part of a path or query: text already percent-encoded, or a value to encode when sent. */
export type Piece = { encoded: string } | { value: unknown };

/** One generated request, before learnt values are chosen. */
export interface RequestDraft {
  operation: Operation;
  segments: Record<string, Piece>;
  query: QueryPart[];
  /** A learnt next link of this operation, sent instead of the generated path and query. */
  follow: KnownValue | undefined;
  /** Header fields in order; a name may repeat. */
  headers: Field[];
  body: { value: unknown; spelling: Spelling } | Buffer | undefined;
}

/** A request as it goes on the wire. */
export interface WireRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body: Buffer | undefined;
}

/** Characters a field value may hold (RFC 9110 §5.5: VCHAR, obs-text, space and tab). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** A request id the service echoes (1 to 128 of these characters). */
export const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const none = fc.constant(undefined);
/** A header field, in order; a name may repeat. */
type Field = readonly [string, unknown];
/** A query parameter. */
type QueryPart = readonly [string, Piece];
const noFields = fc.constant<Field[]>([]);
const noQuery = fc.constant<QueryPart[]>([]);

/** The arbitrary of requests for `operation`, sent with one of `authorizations` (valid Authorization values). */
export function requestArbitrary(
  document: ApiDocument,
  operation: Operation,
  authorizations: readonly [string, ...string[]],
): fc.Arbitrary<RequestDraft> {
  const segments: Record<string, fc.Arbitrary<Piece>> = {};
  const query: Array<fc.Arbitrary<QueryPart[]>> = [];
  const headers: Array<fc.Arbitrary<Field[]>> = [authorization(authorizations)];
  for (const parameter of operation.parameters) {
    const valid = validValue(document.root, parameter.schema);
    if (parameter.in === 'path') {
      const collection = operation.template.slice(0, operation.template.indexOf(`/{${parameter.name}}`));
      segments[parameter.name] = fc.oneof(
        { arbitrary: known(idPool(collection), 1).map((value) => ({ value })), weight: 6 },
        { arbitrary: valid.map((value) => ({ value })), weight: 2 },
        { arbitrary: hostileSegment.map((encoded) => ({ encoded })), weight: 2 },
      );
    } else if (parameter.in === 'query') {
      const piece: fc.Arbitrary<Piece> = fc.oneof(
        { arbitrary: valid.map((value) => ({ value })), weight: 4 },
        { arbitrary: known(queryPool(parameter.name), '').map((value) => ({ value })), weight: 2 },
        { arbitrary: hostileQueryValue.map((encoded) => ({ encoded })), weight: 2 },
      );
      const name = parameter.name;
      query.push(
        fc.oneof(
          { arbitrary: noQuery, weight: parameter.required ? 0 : 5 },
          { arbitrary: piece.map((value) => [[name, value] as const]), weight: 5 },
          { arbitrary: fc.tuple(piece, piece).map(([a, b]) => [[name, a] as const, [name, b] as const]), weight: 1 },
        ),
      );
    } else if (parameter.in === 'header') {
      const name = parameter.name.toLowerCase();
      const value = fc.oneof(
        // Written as text when sent; characters a field cannot hold are left out then.
        { arbitrary: valid, weight: 4 },
        { arbitrary: known(headerPool(name), 'none-sent-yet'), weight: 3 },
        { arbitrary: hostileHeaderValue, weight: 1 },
      );
      headers.push(
        fc.oneof(
          { arbitrary: noFields, weight: parameter.required ? 0 : 5 },
          { arbitrary: value.map((one) => [[name, one] as const]), weight: 5 },
          { arbitrary: fc.tuple(value, value).map(([a, b]) => [[name, a] as const, [name, b] as const]), weight: 1 },
        ),
      );
    }
  }
  // Parameters the document does not name are ignored, whatever they hold.
  query.push(
    fc.oneof(
      { arbitrary: noQuery, weight: 8 },
      {
        arbitrary: fc
          .tuple(fc.string({ maxLength: 6 }), hostileQueryValue)
          .map(([name, encoded]): QueryPart[] => [[encodeURIComponent(name), { encoded }]]),
        weight: 1,
      },
    ),
  );
  headers.push(requestId);
  const mediaTypes = Object.keys(operation.requestBody?.content ?? {});
  if (mediaTypes.length > 0) headers.push(contentType(mediaTypes));
  const hasQuery = operation.parameters.some((parameter) => parameter.in === 'query');
  return (
    fc
      .record({
        segments: fc.record(segments),
        query: fc.tuple(...query).map((parts) => parts.flat()),
        follow: hasQuery ? fc.oneof({ arbitrary: none, weight: 3 }, known(linkPool(operation.id), undefined)) : none,
        headers: fc.tuple(...headers).map((parts) => parts.flat()),
        body: bodyArbitrary(document, operation),
      })
      // fast-check prints a counterexample with this; the request as sent is in the failure's message.
      .map((parts) => ({ operation, ...parts, [fc.toStringMethod]: () => `a request for ${operation.id}` }))
  );
}

/** A value chosen from `pool` when the request is sent. */
function known(pool: string, fallback: unknown): fc.Arbitrary<KnownValue> {
  return pickArbitrary.map((pick) => new KnownValue(pool, pick, fallback));
}

function authorization(valid: readonly [string, ...string[]]): fc.Arbitrary<Field[]> {
  const [main, ...others] = valid;
  const token = main.replace(/^\S+\s+/, '');
  const field = (value: string): Field[] => [['authorization', value]];
  return fc.oneof(
    { arbitrary: fc.constant(field(main)), weight: 30 },
    { arbitrary: fc.constantFrom(...[main, ...others].map(field)), weight: 4 },
    // The scheme in any case and more than one space are the same credential.
    { arbitrary: fc.constantFrom(field(`bearer   ${token}`), field(`BEARER ${token}`)), weight: 1 },
    {
      arbitrary: fc.constantFrom<Field[]>(
        [],
        field('Bearer wrong-key-0123456789abcdef'),
        field(`Basic ${Buffer.from('user:pass').toString('base64')}`),
        field('Bearer'),
        field(`Bearer ${token} ${token}`),
        [
          ['authorization', main],
          ['authorization', main],
        ],
      ),
      weight: 1,
    },
  );
}

const requestId: fc.Arbitrary<Field[]> = fc.oneof(
  { arbitrary: noFields, weight: 8 },
  { arbitrary: fc.stringMatching(VALID_REQUEST_ID).map((id) => [['x-request-id', id] as const]), weight: 1 },
  { arbitrary: hostileHeaderValue.map((id) => [['x-request-id', id] as const]), weight: 1 },
);

function contentType(mediaTypes: string[]): fc.Arbitrary<Field[]> {
  const valid = fc.constantFrom(...mediaTypes);
  const field = (value: string): Field[] => [['content-type', value]];
  return fc.oneof(
    { arbitrary: valid.map(field), weight: 12 },
    {
      arbitrary: fc
        .tuple(valid, fc.constantFrom('upper', '; charset=utf-8', ';charset=UTF-8', '; charset="utf-8"'))
        .map(([type, how]) => field(how === 'upper' ? type.toUpperCase() : `${type}${how}`)),
      weight: 2,
    },
    {
      arbitrary: fc
        .constantFrom(
          'text/plain',
          'application/xml',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/json; charset=latin1',
          'application/json; charset=utf-16',
          'application/json; boundary=x',
          'application/jsonx',
          '*/*',
          'json',
          '',
        )
        .map(field),
      weight: 2,
    },
    { arbitrary: noFields, weight: 1 },
    { arbitrary: fc.tuple(valid, valid).map(([a, b]) => [...field(a), ...field(b)]), weight: 1 },
  );
}

function bodyArbitrary(document: ApiDocument, operation: Operation): fc.Arbitrary<RequestDraft['body']> {
  const schemas = Object.values(operation.requestBody?.content ?? {});
  if (schemas.length === 0)
    return fc.oneof(
      { arbitrary: none, weight: 12 },
      { arbitrary: fc.record({ value: fc.jsonValue({ maxDepth: 2 }), spelling: spellingArbitrary }), weight: 1 },
      { arbitrary: brokenBody, weight: 1 },
    );
  const schema = schemas[0] as JsonSchema;
  const valid = validValue(document.root, schema);
  const json = (value: fc.Arbitrary<unknown>): fc.Arbitrary<RequestDraft['body']> =>
    fc.record({ value, spelling: spellingArbitrary });
  return fc.oneof(
    { arbitrary: json(valid), weight: 8 },
    { arbitrary: json(mutated(valid, dereference<JsonSchema>(document.root, schema))), weight: 4 },
    { arbitrary: json(hostileValue), weight: 1 },
    { arbitrary: brokenBody, weight: 1 },
    { arbitrary: none, weight: 1 },
  );
}

/** The request as sent: learnt values chosen, path and query encoded, the body written. */
export function materialize(document: ApiDocument, draft: RequestDraft, known: KnownValues): WireRequest {
  const text = (piece: Piece): string => {
    if ('encoded' in piece) return piece.encoded;
    const value = known.resolve(piece.value);
    return encodeURIComponent(String(typeof value === 'string' ? value : JSON.stringify(value)).toWellFormed());
  };
  let path = `${document.basePath}${draft.operation.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const segment = text(draft.segments[name] ?? { encoded: '' });
    // An empty segment would reach another route, or none; a space keeps it this operation's.
    return segment === '' ? '%20' : segment;
  })}`;
  const query = draft.query.map(([name, piece]) => `${name}=${text(piece)}`).join('&');
  if (query !== '') path += `?${query}`;
  const link = draft.follow === undefined ? undefined : known.choose(draft.follow);
  if (typeof link === 'string') path = link;
  const headers: Record<string, string | string[]> = {};
  for (const [name, raw] of draft.headers) {
    const chosen = known.resolve(raw);
    const value =
      typeof chosen === 'string' && FIELD_VALUE.test(chosen) ? chosen : String(chosen).replace(/[^\x20-\x7e]/g, '');
    const already = headers[name];
    headers[name] = already === undefined ? value : [...(Array.isArray(already) ? already : [already]), value];
  }
  let body: Buffer | undefined;
  if (Buffer.isBuffer(draft.body)) body = draft.body;
  else if (draft.body !== undefined)
    body = Buffer.from(writeJson(known.resolve(draft.body.value), draft.body.spelling), 'utf8');
  return { method: draft.operation.method, path, headers, body };
}

/** A short account of a request, for a failure message. */
export function describeRequest(request: WireRequest): string {
  const body = request.body === undefined ? '' : ` body ${JSON.stringify(request.body.toString('utf8').slice(0, 400))}`;
  return `${request.method} ${request.path.slice(0, 300)} headers ${JSON.stringify(request.headers).slice(0, 600)}${body}`;
}
