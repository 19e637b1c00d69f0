// GET /docs: the API reference, Swagger UI rendering the OpenAPI document the service serves, and the
// page's files under /docs/. Like /healthz it needs no key and counts against no limit. Safe to serve in
// public: a Content-Security-Policy that allows only this origin (no inline script: the start-up code
// is a file of its own), no sniffing, no referrer; every file has a strong ETag, so a reload costs a 304.
// The key a reader pastes into "Authorize" stays in the tab's memory (persistAuthorization off): never
// in a URL, a cookie or storage, so never in a log either.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { refuseUnlessRead } from './read-only.js';
import type { ResponseHeaders } from './response-headers.js';

/** One file of the page, ready to send. */
interface PageFile {
  body: Buffer;
  contentType: string;
  etag: string;
  cacheControl: string;
}

/** The renderer's files the page needs, as the docs assets reader gives them. */
export interface RendererFiles {
  'swagger-ui-bundle.js': Buffer;
  'swagger-ui.css': Buffer;
  'favicon-32x32.png': Buffer;
}

export const DOCS_PATH = '/docs';

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets style attributes from its scripts; no style comes from elsewhere.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every answer under /docs. */
const SAFETY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

/** The HTML of the page; every script and style is a file of this origin. */
function pageHtml(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png">
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/start.js"></script>
</body>
</html>
`;
}

/**
 * The start-up script: render the document at `openapiUrl`, with this server first in its server list,
 * so that "Try it out" calls the API that served the page (the document's own servers, the public and
 * staging addresses, stay in the list). No validator (it would send the document to a third party), no
 * deep links in the URL. Swagger UI shows no `x-stability`, so an operation that carries one (the
 * orders: beta) gets it after its summary, "(beta)", in the page only: the served document and its
 * one tag stay as they are.
 */
function startScript(openapiUrl: string, apiPath: string): string {
  return `'use strict';
window.addEventListener('load', function () {
  fetch(${JSON.stringify(openapiUrl)})
    .then(function (response) { return response.json(); })
    .then(function (spec) {
      spec.servers = [{ url: window.location.origin + ${JSON.stringify(apiPath)}, description: 'This server' }]
        .concat(spec.servers || []);
      Object.keys(spec.paths || {}).forEach(function (path) {
        var item = spec.paths[path];
        Object.keys(item).forEach(function (method) {
          var operation = item[method];
          var stability = operation && operation['x-stability'];
          if (typeof stability !== 'string') return;
          operation.summary = (operation.summary ? operation.summary + ' ' : '') + '(' + stability + ')';
        });
      });
      window.ui = SwaggerUIBundle({
        spec: spec,
        dom_id: '#swagger-ui',
        validatorUrl: null,
        deepLinking: false,
        persistAuthorization: false,
        displayRequestDuration: true,
      });
    });
});
`;
}

function pageFile(body: Buffer, contentType: string, cacheControl: string): PageFile {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, contentType, etag, cacheControl };
}

/** The files of the page, by path. */
export class DocsPage {
  readonly #files = new Map<string, PageFile>();

  constructor(renderer: RendererFiles, apiPath: string, title: string) {
    const openapiUrl = `${apiPath}/openapi.json`;
    // The page and its start-up script name this service's document: revalidated on every load. The
    // renderer's files change only with the package: a day in caches, then revalidated.
    const revalidate = 'no-cache';
    const day = 'public, max-age=86400';
    this.#files.set(DOCS_PATH, pageFile(Buffer.from(pageHtml(title)), 'text/html; charset=utf-8', revalidate));
    this.#files.set(
      `${DOCS_PATH}/start.js`,
      pageFile(Buffer.from(startScript(openapiUrl, apiPath)), 'text/javascript; charset=utf-8', revalidate),
    );
    this.#files.set(
      `${DOCS_PATH}/swagger-ui-bundle.js`,
      pageFile(renderer['swagger-ui-bundle.js'], 'text/javascript; charset=utf-8', day),
    );
    this.#files.set(
      `${DOCS_PATH}/swagger-ui.css`,
      pageFile(renderer['swagger-ui.css'], 'text/css; charset=utf-8', day),
    );
    this.#files.set(`${DOCS_PATH}/favicon-32x32.png`, pageFile(renderer['favicon-32x32.png'], 'image/png', day));
  }

  /** True for the page's paths: the page itself and its files. */
  has(path: string): boolean {
    // Every request that is not operational asks this (an API path included): a look at its start
    // spares most of them hashing the whole path for the map.
    return path.startsWith(DOCS_PATH) && this.#files.has(path);
  }

  /** Answers a request for one of the page's paths (`has(path)` is true): GET and HEAD, 304 on a matching ETag, else 405. */
  answer(req: IncomingMessage, res: ServerResponse, headers: ResponseHeaders, path: string): void {
    const file = this.#files.get(path) as PageFile;
    if (refuseUnlessRead(req, res, headers)) return;
    headers.setAll(SAFETY_HEADERS);
    headers.set('etag', file.etag);
    headers.set('cache-control', file.cacheControl);
    if (matchesEtag(req.headers['if-none-match'], file.etag)) {
      res.writeHead(304, headers.list);
      res.end();
      return;
    }
    headers.set('content-type', file.contentType);
    headers.set('content-length', String(file.body.length));
    res.writeHead(200, headers.list);
    res.end(req.method === 'HEAD' ? undefined : file.body);
  }
}

/** RFC 9110 section 13.1.2: If-None-Match is `*` or a list of entity tags, compared weakly. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
