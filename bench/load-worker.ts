// One thread of a load spread over threads (load-workers.ts): runs its share with the load loop and
// posts progress and the result back. It says 'ready' once loaded and starts on 'go', so every
// thread starts at the same moment; 'stop' ends its run early (another thread met a stop status).
import { parentPort, workerData } from 'node:worker_threads';
import { cycleOf, type ThreadMessage, type ThreadTask, toSent } from './load-workers.js';
import { runLoad } from './load.js';
import { SCENARIOS } from './scenarios.js';

const port = parentPort;
if (port === null) throw new Error('load-worker.ts runs only as a worker thread');
const task = workerData as ThreadTask;
const post = (message: ThreadMessage): void => port.postMessage(message);
const stop = new AbortController();

async function run(): Promise<void> {
  const { requests, inspectScenario, offset, stride, progress, ...load } = task;
  const result = await runLoad({
    ...load,
    nextRequest: cycleOf(requests, offset, stride),
    inspect: inspectScenario === undefined ? undefined : SCENARIOS[inspectScenario as keyof typeof SCENARIOS]?.inspect,
    stopSignal: stop.signal,
    onStopped: () => post({ type: 'stopped' }),
    onProgress: progress ? (snapshot) => post({ type: 'progress', progress: snapshot }) : undefined,
  });
  post({ type: 'done', result: toSent(result) });
}

port.on('message', (message: unknown) => {
  if (message === 'go')
    run().then(
      () => port.close(),
      (error: unknown) => post({ type: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
  else if (message === 'stop') stop.abort();
});
post({ type: 'ready' });
