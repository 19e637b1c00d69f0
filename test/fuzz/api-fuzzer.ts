// The property-based fuzzer of the HTTP API, driven by the document the service serves: requests for
// every operation in it (request-arbitrary.ts) are sent to a real service, one at a time, each with a
// deadline, and every answer must keep the document's promises (answer-check.ts); every acknowledged
// change must read back exactly (a GET of its Location, or of the resource it was made on, gives the
// same JSON; a 204 to DELETE leaves a 404). What answers teach (ids, next links, keys sent) feeds
// later requests. `stop` mode fails on the first broken promise, shrunk by fast-check, for `npm test`;
// `collect` mode goes on and reports each kind of failure once, for long runs.
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { Agent } from 'undici';
import { type Answer, answerProblems, jsonOf, type Problem } from './answer-check.js';
import { anyIdPool, headerPool, idPool, KnownValues, linkPool, queryPool } from './known-values.js';
import {
  dereference,
  findOperation,
  isObject,
  readDocument,
  type ApiDocument,
  type JsonSchema,
} from './openapi-document.js';
import { describeRequest, materialize, requestArbitrary, type WireRequest } from './request-arbitrary.js';
import { SchemaChecker } from './schema-check.js';

/** How long one request may take before it counts as a hang. */
export const DEADLINE_MS = 5000;

export interface FuzzOptions {
  /** The service's origin: `http://127.0.0.1:PORT`. */
  origin: string;
  /** Where the document is served (default `/v1/openapi.json`). */
  documentPath?: string;
  /** Valid Authorization values, the first used most. */
  authorizations: readonly [string, ...string[]];
  requests: number;
  seed: number;
  mode: 'stop' | 'collect';
  /** Told of progress now and then (collect mode). */
  progress?: (line: string) => void;
}

/** One kind of failure, as first seen, and how often. */
export interface Finding extends Problem {
  /** The run (0-based) it was first seen in: replay with the same seed and one more request. */
  run: number;
  request: string;
  count: number;
}

export interface FuzzReport {
  requests: number;
  /** "operationId status" → how many answers. */
  answers: Map<string, number>;
  readBacks: number;
  findings: Finding[];
}

/** Runs the fuzzer against a service and reports what it found (throws on the first failure in stop mode). */
export async function fuzzApi(options: FuzzOptions): Promise<FuzzReport> {
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 1 });
  try {
    const served = await send(agent, options.origin, {
      method: 'GET',
      path: options.documentPath ?? '/v1/openapi.json',
      headers: {},
      body: undefined,
    });
    const root = jsonOf(served);
    if (served.status !== 200 || !isObject(root)) throw new Error(`the document answered ${served.status}`);
    const session = new Session(readDocument(root), agent, options.origin);
    const { operations } = session.document;
    const requests = fc.oneof(
      ...operations.map((op) => requestArbitrary(session.document, op, options.authorizations)),
    );
    const findings = new Map<string, Finding>();
    let run = 0;
    const property = fc.asyncProperty(requests, async (draft) => {
      const request = materialize(session.document, draft, session.known);
      const problems = await session.exchange(request);
      if (options.mode === 'stop') {
        if (problems.length > 0)
          throw new Error(
            `${problems.map((p) => `${p.property}: ${p.detail}`).join('\n')}\n${describeRequest(request)}`,
          );
        return;
      }
      for (const problem of problems) {
        const kind = `${problem.property} ${draft.operation.id} ${problem.detail.slice(0, 40)}`;
        const seen = findings.get(kind);
        if (seen !== undefined) seen.count++;
        else findings.set(kind, { ...problem, run, request: describeRequest(request), count: 1 });
      }
      run++;
      if (options.progress !== undefined && run % Math.max(1, Math.floor(options.requests / 20)) === 0)
        options.progress(`${run} requests, ${findings.size} kinds of failure`);
    });
    await fc.assert(property, { seed: options.seed, numRuns: options.requests });
    return {
      requests: options.requests,
      answers: session.answers,
      readBacks: session.readBacks,
      findings: [...findings.values()],
    };
  } finally {
    await agent.close();
  }
}

/** One run's state: the document, what was learnt, and counts. */
class Session {
  readonly known = new KnownValues();
  readonly answers = new Map<string, number>();
  readBacks = 0;
  readonly #checker: SchemaChecker;

  constructor(
    readonly document: ApiDocument,
    readonly agent: Agent,
    readonly origin: string,
  ) {
    this.#checker = new SchemaChecker(document.root);
  }

  /** Sends a request, checks its answer, learns from it and reads back what it changed. */
  async exchange(request: WireRequest): Promise<Problem[]> {
    const answer = await this.#sendAndCount(request);
    if (answer instanceof Error) return [{ property: 'an answer to every request, in time', detail: answer.message }];
    const problems = answerProblems(this.document, this.#checker, request, answer);
    this.#learn(request, answer);
    if (!['GET', 'HEAD'].includes(request.method) && answer.headers['idempotent-replayed'] !== 'true')
      problems.push(...(await this.#readBack(request, answer)));
    return problems;
  }

  async #sendAndCount(request: WireRequest): Promise<Answer | Error> {
    const answer = await send(this.agent, this.origin, request).catch((error: unknown) => error as Error);
    const reached = findOperation(this.document, request.method, request.path.split('?')[0] as string);
    const key = `${reached?.operation.id ?? `${request.method} (no operation)`} ${answer instanceof Error ? 'no answer' : answer.status}`;
    this.answers.set(key, (this.answers.get(key) ?? 0) + 1);
    return answer;
  }

  /** Ids, next links, cursors and header values from this exchange, for later requests. */
  #learn(request: WireRequest, answer: Answer): void {
    for (const [name, value] of Object.entries(request.headers))
      if (name !== 'authorization' && name !== 'content-type')
        for (const each of [value].flat()) this.known.add(headerPool(name), each);
    if (answer.status < 200 || answer.status > 299) return;
    const path = request.path.split('?')[0] as string;
    const reached = findOperation(this.document, request.method, path);
    const body = jsonOf(answer);
    const template = reached?.operation.template ?? '';
    const collection = /\/\{[^}]+\}$/.test(template) ? template.replace(/\/\{[^}]+\}$/, '') : template;
    for (const item of Array.isArray(body) ? body : [body]) {
      if (!isObject(item) || (typeof item.id !== 'number' && typeof item.id !== 'string')) continue;
      this.known.add(anyIdPool(typeof item.id === 'number' ? 'integer' : 'string'), item.id);
      if (!collection.includes('{')) this.known.add(idPool(collection), item.id);
    }
    const next = answer.headers['x-next'];
    if (typeof next === 'string' && reached !== undefined) {
      this.known.add(linkPool(reached.operation.id), next);
      for (const [name, value] of new URLSearchParams(next.split('?')[1] ?? '')) this.known.add(queryPool(name), value);
    }
  }

  /** An acknowledged change, read back: the same JSON at its Location or resource; gone after a 204 DELETE. */
  async #readBack(request: WireRequest, answer: Answer): Promise<Problem[]> {
    const authorization = request.headers.authorization ?? '';
    const read = async (path: string): Promise<Answer | Error> => {
      this.readBacks++;
      const get: WireRequest = { method: 'GET', path, headers: { authorization }, body: undefined };
      const got = await this.#sendAndCount(get);
      return got;
    };
    if (answer.status === 204 && request.method === 'DELETE') {
      const path = request.path.split('?')[0] as string;
      if (findOperation(this.document, 'GET', path) === undefined) return [];
      const after = await read(path);
      if (after instanceof Error || after.status !== 404)
        return [
          {
            property: 'a deletion reads back',
            detail: `GET ${path} after 204: ${String(after instanceof Error ? after.message : after.status)}`,
          },
        ];
      return [];
    }
    if (answer.status !== 200 && answer.status !== 201) return [];
    const body = jsonOf(answer);
    const path = this.#resourceOf(request, answer, body);
    if (path === undefined) return [];
    const after = await read(path);
    if (after instanceof Error)
      return [{ property: 'an answer to every request, in time', detail: `read back GET ${path}: ${after.message}` }];
    const problems = answerProblems(
      this.document,
      this.#checker,
      { method: 'GET', path, headers: {}, body: undefined },
      after,
    );
    const expected = this.#asRead(path, body);
    const got = jsonOf(after);
    if (after.status !== 200 || !isDeepStrictEqual(got, expected))
      problems.push({
        property: 'an acknowledged change reads back',
        detail: `${request.method} answered ${answer.status} ${JSON.stringify(body)?.slice(0, 300)}; GET ${path} answered ${after.status} ${after.body.toString('utf8').slice(0, 300)}`,
      });
    return problems;
  }

  /** Where a change can be read: its Location, or the request's path (or a parent) ending in its id. */
  #resourceOf(request: WireRequest, answer: Answer, body: unknown): string | undefined {
    const location = answer.headers.location;
    if (typeof location === 'string' && findOperation(this.document, 'GET', location) !== undefined) return location;
    if (!isObject(body) || (typeof body.id !== 'number' && typeof body.id !== 'string')) return undefined;
    const segments = (request.path.split('?')[0] as string).split('/');
    for (let end = segments.length; end > 1; end--) {
      const candidate = segments.slice(0, end).join('/');
      if (segments[end - 1] === encodeURIComponent(String(body.id)) && findOperation(this.document, 'GET', candidate))
        return candidate;
    }
    return undefined;
  }

  /** What a GET of `path` should answer for a change answered `body`: its members the GET's schema names. */
  #asRead(path: string, body: unknown): unknown {
    const reached = findOperation(this.document, 'GET', path);
    const schema = dereference<JsonSchema | undefined>(
      this.document.root,
      reached?.operation.responses['200']?.content['application/json'],
    );
    if (!isObject(body) || !isObject(schema) || schema.additionalProperties !== false || !isObject(schema.properties))
      return body;
    const names = Object.keys(schema.properties);
    return Object.fromEntries(Object.entries(body).filter(([name]) => names.includes(name)));
  }
}

/** Sends one request and reads the whole answer, within the deadline. */
async function send(agent: Agent, origin: string, request: WireRequest): Promise<Answer> {
  const signal = AbortSignal.timeout(DEADLINE_MS);
  try {
    const response = await agent.request({
      origin,
      path: request.path,
      method: request.method as 'GET',
      headers: request.headers,
      body: request.body,
      signal,
    });
    const body = Buffer.from(await response.body.arrayBuffer());
    return { status: response.statusCode, headers: response.headers, body };
  } catch (error) {
    if (signal.aborted) throw new Error(`no whole answer within ${DEADLINE_MS} ms`);
    throw new Error(`no answer: ${(error as Error).message}`);
  }
}
