// A small router over raw paths: static segments and `{param}` segments, matched exactly and
// case-sensitively, before any percent-decoding (README "How the API behaves"). `find` is pure; dispatch.ts
// does the I/O. Routes are few, so a segment tree with a static-first lookup is all the speed needed.
// A node has a handful of static children at most, so `find` compares them in place, in the path,
// rather than cutting each segment out and hashing it for a map: it runs on every request.

/** What `find` answers: the route and its raw parameters, or why there is none. */
export type RouteMatch<R> =
  | { kind: 'found'; route: R; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: string; route: R }
  | { kind: 'not_found' };

interface Node<R> {
  statics: StaticChild<R>[];
  param: { name: string; node: Node<R> } | undefined;
  methods: Map<string, R>;
  /** The `Allow` header value for this path, computed when routes are added. */
  allow: string;
}

interface StaticChild<R> {
  segment: string;
  node: Node<R>;
}

function createNode<R>(): Node<R> {
  return { statics: [], param: undefined, methods: new Map(), allow: '' };
}

/** The static child of `node` named by `path` from `start` to `end`, if there is one. */
function staticChild<R>(node: Node<R>, path: string, start: number, end: number): Node<R> | undefined {
  const length = end - start;
  for (const child of node.statics) {
    if (child.segment.length === length && path.startsWith(child.segment, start)) return child.node;
  }
  return undefined;
}

/** Routes keyed by method and path template, such as `GET /pets/{petId}`. */
export class Router<R> {
  #root: Node<R> = createNode();

  /** Adds a route; a `GET` route answers `HEAD` too (README "How the API behaves"). */
  add(method: string, template: string, route: R): this {
    if (!template.startsWith('/')) throw new TypeError(`route template must start with "/": ${template}`);
    let node = this.#root;
    for (const segment of template.slice(1).split('/')) {
      const param = /^\{([A-Za-z][A-Za-z0-9]*)\}$/.exec(segment);
      if (param !== null) {
        const name = param[1] as string;
        if (node.param !== undefined && node.param.name !== name) {
          throw new TypeError(`route ${template}: parameter {${name}} conflicts with {${node.param.name}}`);
        }
        node.param ??= { name, node: createNode() };
        node = node.param.node;
      } else {
        let next = node.statics.find((child) => child.segment === segment)?.node;
        if (next === undefined) {
          next = createNode();
          node.statics.push({ segment, node: next });
        }
        node = next;
      }
    }
    if (node.methods.has(method)) throw new TypeError(`route ${method} ${template} is defined twice`);
    node.methods.set(method, route);
    if (method === 'GET' && !node.methods.has('HEAD')) node.methods.set('HEAD', route);
    node.allow = [...node.methods.keys()].sort().join(', ');
    return this;
  }

  /** Finds the route for `method` and a raw `path` (relative to the base path, starting with "/"). */
  find(method: string, path: string): RouteMatch<R> {
    if (path.length === 0 || path.charCodeAt(0) !== 47 /* "/" */) return { kind: 'not_found' };
    let node: Node<R> | undefined = this.#root;
    let params: Record<string, string> | undefined;
    let start = 1;
    while (node !== undefined) {
      let end = path.indexOf('/', start);
      if (end === -1) end = path.length;
      const next: Node<R> | undefined = staticChild(node, path, start, end);
      if (next !== undefined) {
        node = next;
      } else if (node.param !== undefined && end > start) {
        params ??= {};
        params[node.param.name] = path.slice(start, end);
        node = node.param.node;
      } else {
        return { kind: 'not_found' };
      }
      if (end === path.length) break;
      start = end + 1;
    }
    if (node === undefined || node.methods.size === 0) return { kind: 'not_found' };
    const route = node.methods.get(method);
    if (route !== undefined) return { kind: 'found', route, params: params ?? {} };
    return { kind: 'method_not_allowed', allow: node.allow, route: node.methods.values().next().value as R };
  }
}
