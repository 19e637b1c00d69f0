// What the delivery worker reads of this process's load (ApiLoad, in src/webhooks/delivery-pacer.ts):
// the dispatcher's counts of API requests, and how busy the event loop has been since the last look.
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Dispatcher } from '../http/dispatch.js';
import type { ApiLoad } from '../webhooks/delivery-pacer.js';

/** The ApiLoad of the dispatcher `dispatcher()` gives (made after the worker) and this process's event loop. */
export function apiLoadOf(dispatcher: () => Pick<Dispatcher, 'busiest' | 'answered'>): ApiLoad {
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  return {
    busiest: () => dispatcher().busiest(),
    answered: () => dispatcher().answered(),
    loopUtilization: () => {
      const now = performance.eventLoopUtilization();
      const since = performance.eventLoopUtilization(now, last);
      last = now;
      return since.utilization;
    },
  };
}
