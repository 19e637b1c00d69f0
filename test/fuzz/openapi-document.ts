// The served OpenAPI document, read as the fuzzer needs it: every operation (each path × method, path-level
// parameters merged in, every `$ref` followed), the base path of its servers, the response a status
// falls under, and which operation a path and method reach. Nothing here names an operation: what the
// document describes is what gets fuzzed, routes added later included.

/** A JSON Schema, as the document writes it. */
export type JsonSchema = { [keyword: string]: unknown };

/** A parameter of an operation, resolved. */
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonSchema;
}

/** A response of an operation, resolved: its declared headers and, per media type, its body schema. */
export interface ResponseSpec {
  headers: Record<string, { required: boolean; schema: JsonSchema }>;
  content: Record<string, JsonSchema>;
}

/** One operation of the document. */
export interface Operation {
  /** The operationId, or "METHOD template" when it has none. */
  id: string;
  method: string;
  /** The path as the document writes it, relative to the base path: `/pets/{petId}`. */
  template: string;
  parameters: Parameter[];
  /** Media type → schema of the request body, and whether a body is required; undefined: no body. */
  requestBody: { required: boolean; content: Record<string, JsonSchema> } | undefined;
  /** Status code or range (`4XX`, `default`) → response. */
  responses: Record<string, ResponseSpec>;
}

/** The document as the fuzzer reads it. */
export interface ApiDocument {
  /** The whole document: the root that `#/…` references point into. */
  root: JsonSchema;
  /** The path the API lives under (`/v1`), from the document's first server. */
  basePath: string;
  operations: Operation[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Follows `$ref`s (local JSON Pointers) until a node without one. */
export function dereference<T>(root: JsonSchema, node: unknown): T {
  let current = node;
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string'; hops++) {
    if (hops > 32) throw new Error(`a $ref cycle at ${current.$ref}`);
    current = pointer(root, current.$ref);
  }
  return current as T;
}

/** The node a local JSON Pointer (`#/components/schemas/Pet`) names. */
export function pointer(root: JsonSchema, reference: string): unknown {
  if (!reference.startsWith('#')) throw new Error(`only local references are followed, not ${reference}`);
  let node: unknown = root;
  for (const raw of reference.slice(1).split('/').slice(1)) {
    const token = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isObject(node) || !(token in node)) throw new Error(`unresolvable reference ${reference}`);
    node = node[token];
  }
  return node;
}

/** Reads every operation of a served OpenAPI 3.x document. */
export function readDocument(root: JsonSchema): ApiDocument {
  const servers = Array.isArray(root.servers) ? (root.servers as Array<{ url?: unknown }>) : [];
  const serverUrl = typeof servers[0]?.url === 'string' ? servers[0].url : '/';
  const basePath = new URL(serverUrl, 'http://base.invalid').pathname.replace(/\/+$/, '');
  const operations: Operation[] = [];
  for (const [template, rawItem] of Object.entries((root.paths ?? {}) as Record<string, unknown>)) {
    const item = dereference<JsonSchema>(root, rawItem);
    const shared = readParameters(root, item.parameters);
    for (const method of METHODS) {
      const raw = item[method];
      if (!isObject(raw)) continue;
      const own = readParameters(root, raw.parameters);
      // An operation's own parameter overrides the path's of the same name and location.
      const parameters = [...shared.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in)), ...own];
      operations.push({
        id: typeof raw.operationId === 'string' ? raw.operationId : `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        template,
        parameters,
        requestBody: readRequestBody(root, raw.requestBody),
        responses: readResponses(root, raw.responses),
      });
    }
  }
  return { root, basePath, operations };
}

/** The response a status falls under: its own, its range's (`4XX`), or `default`. */
export function responseFor(operation: Operation, status: number): ResponseSpec | undefined {
  return (
    operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`] ?? operation.responses.default
  );
}

/** The operation a method and a path (under the base path, query excluded) reach, with its path values. */
export function findOperation(
  document: ApiDocument,
  method: string,
  path: string,
): { operation: Operation; values: Record<string, string> } | undefined {
  if (!path.startsWith(`${document.basePath}/`)) return undefined;
  const segments = path.slice(document.basePath.length).split('/');
  for (const operation of document.operations) {
    if (operation.method !== method) continue;
    const wanted = operation.template.split('/');
    if (wanted.length !== segments.length) continue;
    const values: Record<string, string> = {};
    const matches = wanted.every((part, index) => {
      const name = /^\{(.+)\}$/.exec(part)?.[1];
      if (name === undefined) return part === segments[index];
      values[name] = segments[index] as string;
      return segments[index] !== '';
    });
    if (matches) return { operation, values };
  }
  return undefined;
}

function readParameters(root: JsonSchema, raw: unknown): Parameter[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((entry) => {
    const parameter = dereference<JsonSchema>(root, entry);
    return {
      name: String(parameter.name),
      in: parameter.in as Parameter['in'],
      required: parameter.required === true,
      schema: isObject(parameter.schema) ? parameter.schema : {},
    };
  });
}

function readRequestBody(root: JsonSchema, raw: unknown): Operation['requestBody'] {
  if (raw === undefined) return undefined;
  const body = dereference<JsonSchema>(root, raw);
  return { required: body.required === true, content: readContent(body.content) };
}

function readResponses(root: JsonSchema, raw: unknown): Record<string, ResponseSpec> {
  const responses: Record<string, ResponseSpec> = {};
  for (const [status, entry] of Object.entries(isObject(raw) ? raw : {})) {
    const response = dereference<JsonSchema>(root, entry);
    const headers: ResponseSpec['headers'] = {};
    for (const [name, header] of Object.entries(isObject(response.headers) ? response.headers : {})) {
      const resolved = dereference<JsonSchema>(root, header);
      headers[name.toLowerCase()] = {
        required: resolved.required === true,
        schema: isObject(resolved.schema) ? resolved.schema : {},
      };
    }
    responses[status.toUpperCase() === 'DEFAULT' ? 'default' : status.toUpperCase()] = {
      headers,
      content: readContent(response.content),
    };
  }
  return responses;
}

function readContent(raw: unknown): Record<string, JsonSchema> {
  const content: Record<string, JsonSchema> = {};
  for (const [type, media] of Object.entries(isObject(raw) ? raw : {}))
    content[type.toLowerCase()] = isObject(media) && isObject(media.schema) ? media.schema : {};
  return content;
}

/** A plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
