// Child-process entry of the startup scenario: times createAnimalStore on a data directory (the log
// replay and everything else start-up does), then reports its resident memory after two full
// collections (run with --expose-gc), in a process of its own so nothing else sits in that RSS.
import { get } from 'node:http';
import { performance } from 'node:perf_hooks';
import { createAnimalStore } from '../src/app/create-animal-store.js';

/** What the child reports over IPC. */
export interface StartupSample {
  startMs: number;
  rssBytes: number;
  heapUsedBytes: number;
  externalBytes: number;
  /** Peak resident memory of the whole process (getrusage), replay's transient buffers included. */
  maxRssBytes: number;
  /** X-Total-Count of the replayed store, so a format drift cannot pass for a fast start. */
  totalPets: number;
}

const { dataDir, key } = JSON.parse(process.env.ANIMAL_STORE_BENCH_STARTUP ?? '') as { dataDir: string; key: string };
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});
collect();
const started = performance.now();
const app = await createAnimalStore({
  dataDir,
  durability: 'never',
  keys: [{ key, plan: 'enterprise', perMinute: 1_000_000, perDay: 1_000_000 }],
  createFirstKey: false,
});
const startMs = performance.now() - started;
collect();
collect();
const memory = process.memoryUsage();
const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
const totalPets = await new Promise<number>((resolve, reject) => {
  get(`${url}${app.settings.basePath}/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } }, (res) => {
    res.resume();
    res.on('end', () => resolve(Number(res.headers['x-total-count'])));
  }).on('error', reject);
});
const sample: StartupSample = {
  startMs,
  rssBytes: memory.rss,
  heapUsedBytes: memory.heapUsed,
  externalBytes: memory.external,
  maxRssBytes: process.resourceUsage().maxRSS * 1024,
  totalPets,
};
process.send?.(sample);
await app.close();
// The parent may have closed the channel already, once it had the sample.
if (process.connected) process.disconnect();
