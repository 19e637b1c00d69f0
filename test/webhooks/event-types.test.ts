// The event type names: four a subscription may list, webhook.test on top for delivery only, as
// TypeBox schemas that accept exactly those names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Compile } from 'typebox/compile';
import {
  EVENT_TYPES,
  EventType,
  isSubscribableEventType,
  SUBSCRIBABLE_EVENT_TYPES,
  SubscribableEventType,
  TEST_EVENT_TYPE,
} from '../../src/webhooks/event-types.js';

test('a subscription may list pet.created, pet.updated, order.created and order.updated', () => {
  assert.deepEqual(SUBSCRIBABLE_EVENT_TYPES, ['pet.created', 'pet.updated', 'order.created', 'order.updated']);
  const check = Compile(SubscribableEventType);
  for (const name of SUBSCRIBABLE_EVENT_TYPES) {
    assert.equal(check.Check(name), true, name);
    assert.equal(isSubscribableEventType(name), true, name);
  }
});

test('webhook.test is delivered but cannot be subscribed to', () => {
  assert.equal(TEST_EVENT_TYPE, 'webhook.test');
  assert.equal(Compile(SubscribableEventType).Check('webhook.test'), false);
  assert.equal(isSubscribableEventType('webhook.test'), false);
  assert.equal(Compile(EventType).Check('webhook.test'), true);
  assert.deepEqual(EVENT_TYPES, [...SUBSCRIBABLE_EVENT_TYPES, 'webhook.test']);
});

test('no other name, spelling or value is an event type', () => {
  const subscribable = Compile(SubscribableEventType);
  const any = Compile(EventType);
  for (const value of ['pet.deleted', 'Pet.created', 'pet.created ', 'pet', '*', '', 'toString', 1, null]) {
    assert.equal(subscribable.Check(value), false, String(value));
    assert.equal(any.Check(value), false, String(value));
    if (typeof value === 'string') assert.equal(isSubscribableEventType(value), false, value);
  }
});
