// The JSON of a subscription as the API answers it, in the contract's key order: id, url, events,
// description, status, disabledReason, createdAt, and `secret` only where it is shown (creation, rotation).
import type { NewSubscription } from '../store/webhook-store.js';

/** The subscription's JSON; with its newest secret when `withSecret`. */
export function webhookJson(subscription: NewSubscription, withSecret = false): string {
  const { id, url, events, description, status, disabledReason, createdAt } = subscription;
  const shown: Record<string, unknown> = { id, url, events, description, status, disabledReason, createdAt };
  if (withSecret) shown.secret = subscription.secrets[0]?.secret ?? null;
  return JSON.stringify(shown);
}
