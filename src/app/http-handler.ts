// The HTTP side of the service: its routes over the service layer, the router, and the dispatcher with
// everything it needs from the settings.
import type { Settings } from '../config/settings.js';
import type { Clock } from '../core/clock.js';
import type { KeyLookup } from '../http/authorization.js';
import { CorsPolicy } from '../http/cors.js';
import { createDispatcher, type Dispatcher } from '../http/dispatch.js';
import { DocsPage } from '../http/docs-page.js';
import { readDocsAssets } from '../http/docs/docs-assets.js';
import { buildOpenApi } from '../http/openapi/document.js';
import type { RequestObserver } from '../http/request-observer.js';
import type { Route } from '../http/route.js';
import { Router } from '../http/router.js';
import { eventWebhooks } from '../http/routes/event-webhooks.js';
import { orderRoutes } from '../http/routes/order-routes.js';
import { petRoutes } from '../http/routes/pet-routes.js';
import { webhookRoutes } from '../http/routes/webhook-routes.js';
import type { Limiter } from '../limits/index.js';
import type { Logger } from '../logging/logger.js';
import type { Service } from '../service/service.js';

/** What the HTTP side is built from. */
export interface HttpParts {
  settings: Settings;
  service: Service;
  keys: KeyLookup;
  limiter: Limiter;
  clock: Clock;
  logger: Logger;
  isAccepting(): boolean;
  checkReady(): Promise<void>;
  /** Told of every request (metrics), if metrics are on. */
  observe?: RequestObserver | undefined;
}

/** Every API route, relative to the base path. */
export function apiRoutes(service: Service, settings: Settings): Route[] {
  const { basePath } = settings;
  return [
    ...petRoutes(service, {
      basePath,
      getPetDeprecation: {
        headers: {
          deprecation: `@${Math.floor(settings.deprecatedAt / 1000)}`,
          sunset: new Date(settings.sunsetAt).toUTCString(),
          link: `<${basePath}/pets>; rel="successor-version"`,
        },
        sunsetMs: settings.sunsetAt,
        replacement: `GET ${basePath}/pets with a status filter`,
      },
    }),
    ...orderRoutes(service, basePath),
    ...webhookRoutes(service, basePath),
  ];
}

/** The Strict-Transport-Security value of a service serving TLS, unless turned off (max-age 0). */
export function hstsValue(settings: Settings): string | undefined {
  return settings.tlsCert !== undefined && settings.hstsMaxAge > 0 ? `max-age=${settings.hstsMaxAge}` : undefined;
}

/** The `(req, res)` listener of the service. */
export function createHttpHandler(parts: HttpParts): Dispatcher {
  const { settings, service, logger } = parts;
  // The route table: the router (and so each 405's Allow) and the OpenAPI paths both come from it.
  const routes = apiRoutes(service, settings);
  const router = new Router<Route>();
  for (const route of routes) router.add(route.method, route.path, route);
  return createDispatcher({
    basePath: settings.basePath,
    router,
    keys: parts.keys,
    limiter: parts.limiter,
    clock: parts.clock,
    maxBodyBytes: settings.maxBodyBytes,
    maxUrlBytes: settings.maxUrlBytes,
    maxHeaderBytes: settings.maxHeaderBytes,
    trustProxy: settings.trustProxy,
    maxInFlight: settings.maxInFlight,
    cors: settings.corsOrigins.length === 0 ? undefined : new CorsPolicy(settings.corsOrigins),
    arrive: (scope, key, status) => service.idempotency.arrive(scope, key, status),
    openapiJson: JSON.stringify(
      buildOpenApi({
        routes,
        webhooks: eventWebhooks(),
        publicUrl: settings.publicUrl,
        stagingUrl: settings.stagingUrl,
      }),
    ),
    docs: settings.docs ? new DocsPage(readDocsAssets(), settings.basePath, 'animal-store API') : undefined,
    isAccepting: parts.isAccepting,
    checkReady: parts.checkReady,
    logError: (requestId, error) => {
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      logger.error('unhandled error', { requestId, error: detail });
    },
    accessLog: logger.access,
    observe: parts.observe,
    hsts: hstsValue(settings),
  });
}
