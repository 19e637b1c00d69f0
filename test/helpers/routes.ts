// Routes made up by tests: the least OpenAPI description a route needs, so that a test route is built by
// defineRoute like every real one (a route cannot exist without its description).
import Type from 'typebox';
import type { Operation, SuccessDescription } from '../../src/http/openapi/operation.js';
import { defineRoute, type Route, type RouteDeclaration } from '../../src/http/route.js';

/** A minimal description of the operation `operationId`, with `extra` parts. */
export function described(operationId: string, extra: Partial<Operation> = {}): Operation {
  return {
    operationId,
    summary: `Summary of ${operationId}`,
    description: `Description of ${operationId}.`,
    success: { status: 200, description: 'Done.' },
    errors: [],
    ...extra,
  };
}

/** What a test says of its route: the parts the pipeline reads, the description made up from them. */
export interface TestRouteSpec extends Omit<RouteDeclaration, 'operation'> {
  operationId: string;
  bodyMediaTypes?: readonly string[];
  acceptsIdempotencyKey?: boolean;
  rememberedStatus?: SuccessDescription['status'];
}

/** A route for a test, built by defineRoute from `spec`. */
export function testRoute(spec: TestRouteSpec): Route {
  const { operationId, bodyMediaTypes, acceptsIdempotencyKey, rememberedStatus, ...declaration } = spec;
  return defineRoute({
    ...declaration,
    operation: described(operationId, {
      ...(acceptsIdempotencyKey !== undefined && { acceptsIdempotencyKey }),
      ...(rememberedStatus !== undefined && { success: { status: rememberedStatus, description: 'Done.' } }),
      ...(bodyMediaTypes !== undefined && {
        requestBody: {
          schema: Type.Object({}),
          mediaTypes: Object.fromEntries(bodyMediaTypes.map((type) => [type, { example: {} }])),
        },
      }),
    }),
  });
}
