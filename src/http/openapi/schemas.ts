// The schemas of the document: the TypeBox objects that validate requests, written as plain JSON Schema,
// and the named ones (`components.schemas`) that operations refer to with a `$ref`.
import type { TSchema } from 'typebox';
import { ErrorSchema } from '../../core/schemas.js';
import { EventType } from '../../events/event.js';
import { NewOrder, Order, Orders, OrderStatus, OrderUpdate } from '../../orders/schemas.js';
import { NewPet, Pet, Pets, PetStatus } from '../../pets/schemas.js';
import {
  Attempts,
  Event,
  NewWebhook,
  Recovery,
  RecoveryAnswer,
  Redelivery,
  Webhook,
  Webhooks,
  WebhookUpdate,
  WebhookWithSecret,
} from '../../webhooks/schemas.js';

/** A JSON value of the document. */
export type Json = Record<string, unknown>;

/**
 * The named schemas, in the document's order. An operation that uses one of these objects (or TypeBox's
 * `Optional` copy of one, as a query schema holds its `status`) gets a `$ref` to it; any other schema is
 * written out in place. A new resource adds its schemas here.
 */
export const COMPONENT_SCHEMAS: Readonly<Record<string, TSchema>> = {
  NewPet,
  Pet,
  Pets,
  PetStatus,
  Error: ErrorSchema,
  Order,
  Orders,
  NewOrder,
  OrderUpdate,
  OrderStatus,
  EventType,
  Event,
  Webhook,
  Webhooks,
  WebhookWithSecret,
  NewWebhook,
  WebhookUpdate,
  Attempts,
  Redelivery,
  Recovery,
  RecoveryAnswer,
};

/** JSON Schema's `enum` without `type` leaves code generators guessing: a string enum says it is one. */
function withEnumTypes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withEnumTypes);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Json).map(([key, item]) => [key, withEnumTypes(item)] as const);
  const object = Object.fromEntries(entries) as Json;
  const values = object.enum;
  if (Array.isArray(values) && object.type === undefined && values.every((item) => typeof item === 'string'))
    return { type: 'string', ...object };
  return object;
}

/** `schema` as plain JSON Schema: a JSON round trip drops TypeBox's own non-JSON markers. */
export function plainSchema(schema: TSchema): Json {
  return withEnumTypes(JSON.parse(JSON.stringify(schema))) as Json;
}

/** A `$ref` to the component schema `name`. */
export function schemaRef(name: string): Json {
  return { $ref: `#/components/schemas/${name}` };
}

/** Whether `schema` is `component` or a shallow copy of it (the same fields, each the same value). */
function isCopyOf(schema: TSchema, component: TSchema): boolean {
  if (schema === component) return true;
  const keys = Object.keys(component);
  if (Object.keys(schema).length !== keys.length) return false;
  return keys.every((key) => (schema as Json)[key] === (component as Json)[key]);
}

/** `schema` as the document writes it where an operation uses it: a `$ref` to its component, or in place. */
export function schemaOrRef(schema: TSchema): Json {
  for (const [name, component] of Object.entries(COMPONENT_SCHEMAS)) {
    if (isCopyOf(schema, component)) return schemaRef(name);
  }
  return plainSchema(schema);
}

/** The `components.schemas` section. */
export function componentSchemas(): Json {
  return Object.fromEntries(Object.entries(COMPONENT_SCHEMAS).map(([name, schema]) => [name, plainSchema(schema)]));
}
