// What events and webhooks cost, as bench:compare checks (docs/performance.md,
// docs/performance.md "Events and webhooks"), each on fresh local services in child processes:
//   create-before    creates/s of this build (an event recorded with each create, no subscription)
//                    over creates/s of an earlier build without events (--before DIR)         ≥ 0.95
//   create-webhooks  creates/s with 10 subscriptions to local receivers answering 200, over
//                    creates/s with none                                                        ≥ 0.80
// Both at durability always and 64 connections, alternating as every throughput check does.
import { request } from 'undici';
import { processCpuMs } from './admission-cost.js';
import { type CompareLoad, compareCreates, type CreatePairResult } from './compare-checks.js';
import { withServices } from './local-service.js';
import { startReceivers } from './receivers.js';
import { targetOf } from './run.js';
import type { Target } from './scenarios.js';

/** Subscriptions of the create-webhooks check, and of bench:delivery by default. */
export const SUBSCRIPTIONS = 10;
/**
 * How long the check watches the deliveries left over after the rounds arrive. Saturating creates
 * leave far more than a minute of them (each create owes 10): the rate at which they arrive once the
 * API is quiet is the figure, and the time the rest would take follows from it.
 */
const DRAIN_WATCH_MS = 10_000;

/** Subscribes the target's key to pet.created at each URL (POST /webhooks). */
export async function subscribe(target: Target, urls: readonly string[]): Promise<void> {
  for (const url of urls) {
    const response = await request(`${target.origin}${target.basePath}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.key ?? ''}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url, events: ['pet.created'] }),
    });
    const text = await response.body.text();
    if (response.statusCode !== 201) throw new Error(`POST /webhooks answered ${response.statusCode}: ${text}`);
  }
}

/** Pets the target holds (X-Total-Count of the listing): every create of the run, warm-ups included. */
export async function petCount(target: Target): Promise<number> {
  const response = await request(`${target.origin}${target.basePath}/pets?limit=1`, {
    headers: { authorization: `Bearer ${target.key ?? ''}` },
  });
  await response.body.text();
  return Number(response.headers['x-total-count']);
}

/** create on this build (events recorded, no subscription) against the build at `beforeRoot`. */
export function compareWithBuildBefore(load: CompareLoad, beforeRoot: string): Promise<CreatePairResult> {
  load.log(`create-before: this build and the one at ${beforeRoot} alternately, durability always`);
  return withServices(
    [
      { durability: 'always', pets: 0 },
      { durability: 'always', pets: 0, root: beforeRoot },
    ],
    (now, before) => compareCreates(now, before, load),
  );
}

export interface WebhooksResult extends CreatePairResult {
  subscriptions: number;
  /** Deliveries the receivers got during the rounds (warm-ups included), and how many were due by their end. */
  deliveredByEnd: number;
  dueByEnd: number;
  /** Deliveries a second once the rounds were over, watched for up to DRAIN_WATCH_MS or until all arrived. */
  drainPerSecond: number;
  /** Whether every delivery due arrived while the check watched. */
  drained: boolean;
  /** The receivers' CPU over the rounds, as a share of one core. */
  receiverCoreShare: number;
}

/** create with SUBSCRIPTIONS subscriptions to receivers answering 200, against create with none. */
export async function compareWithSubscriptions(load: CompareLoad): Promise<WebhooksResult> {
  const receivers = await startReceivers({ count: SUBSCRIPTIONS, record: false });
  try {
    load.log(`create-webhooks: ${SUBSCRIPTIONS} subscriptions to receivers answering 200, against none`);
    return await withServices(
      [
        { durability: 'always', pets: 0, webhookAllowPrivate: true },
        { durability: 'always', pets: 0, webhookAllowPrivate: true },
      ],
      async (subscribed, plain) => {
        const target = targetOf(subscribed.apiUrl, subscribed.key);
        await subscribe(target, receivers.urls);
        const cpuBefore = processCpuMs(receivers.pid) ?? 0;
        const startedMs = performance.now();
        // Each service is stopped (SIGSTOP) while the other is measured, so the subscribed one delivers
        // only behind its own creates, held back while they saturate it.
        const pair = await compareCreates(subscribed, plain, load, true);
        const cpuMs = (processCpuMs(receivers.pid) ?? 0) - cpuBefore;
        const elapsedMs = performance.now() - startedMs;
        const dueByEnd = (await petCount(target)) * SUBSCRIPTIONS;
        const deliveredByEnd = (await receivers.report()).received;
        let delivered = deliveredByEnd;
        const drainStartMs = performance.now();
        while (delivered < dueByEnd && performance.now() - drainStartMs < DRAIN_WATCH_MS) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          delivered = (await receivers.report()).received;
        }
        const drainMs = performance.now() - drainStartMs;
        return {
          ...pair,
          subscriptions: SUBSCRIPTIONS,
          deliveredByEnd,
          dueByEnd,
          drainPerSecond: ((delivered - deliveredByEnd) * 1000) / drainMs,
          drained: delivered >= dueByEnd,
          receiverCoreShare: cpuMs / elapsedMs,
        };
      },
    );
  } finally {
    await receivers.close();
  }
}
