// Child-process entry of local-service.ts: runs createAnimalStore on the given data directory,
// listens on 127.0.0.1 (a free port), reports its address over IPC, and stops gracefully when the
// parent closes the channel (or dies), so a CPU profile (--cpu-prof) is written on the way out.
import { createAnimalStore } from '../src/app/create-animal-store.js';
import { LineBuffer } from '../src/logging/line-buffer.js';
import { createLogger } from '../src/logging/logger.js';
import type { ServiceChildConfig } from './local-service.js';

const config = JSON.parse(process.env.ANIMAL_STORE_BENCH_SERVICE ?? '') as ServiceChildConfig;
// Logged as `animal-store serve` logs by default (the access log at info, in batches on stdout), so the
// figures are those of the service as people run it; the parent sends stdout to /dev/null.
const stdout = new LineBuffer((chunk) => process.stdout.write(chunk));
const app = await createAnimalStore({
  dataDir: config.dataDir,
  durability: config.durability,
  keys: config.keys,
  createFirstKey: false,
  ...(config.webhookAllowPrivate === undefined ? {} : { webhookAllowPrivate: config.webhookAllowPrivate }),
  ...(config.databaseUrl === undefined ? {} : { databaseUrl: config.databaseUrl }),
  ...(config.redisUrl === undefined ? {} : { redisUrl: config.redisUrl, redisPrefix: config.redisPrefix }),
  logger: createLogger({
    level: config.logLevel ?? 'info',
    lines: stdout,
    writeProblem: (line) => process.stderr.write(line),
  }),
});
const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ url, basePath: app.settings.basePath });
process.once('disconnect', () => {
  app.close().then(
    () => {
      stdout.flush();
      process.exit(0);
    },
    (error: unknown) => {
      process.stderr.write(`bench service: error while stopping: ${(error as Error).message}\n`);
      process.exit(1);
    },
  );
});
