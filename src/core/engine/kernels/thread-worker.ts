/**
 * A worker thread of the multi-threaded CPU kernels (threaded.ts): holds a Shard on the attached
 * session's shared memory, runs its share of each command and counts itself done in the pool's
 * control words (the engine's thread waits on them with Atomics.wait: the kernel interface is
 * synchronous). Errors go back on `errors`.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { CONTROL, Shard, type WorkerMessage } from './shard.ts';

const {
  errors,
  control: controlBuffer,
  thread,
  threads,
} = workerData as {
  errors: MessagePort;
  control: SharedArrayBuffer;
  thread: number;
  threads: number;
};
const control = new Int32Array(controlBuffer);
let shard: Shard | undefined;

parentPort?.on('message', (message: WorkerMessage) => {
  try {
    if (message.type === 'attach') {
      const { shape, buffers } = message;
      shard = new Shard({ shape, buffers, control: controlBuffer, thread, threads });
    } else if (message.type === 'detach') {
      shard = undefined;
    } else if (!shard) {
      throw new Error(`'${message.type}' before any session was attached`);
    } else {
      shard.run(message);
    }
  } catch (err) {
    errors.postMessage(err instanceof Error ? err.message : String(err));
    Atomics.store(control, CONTROL.error, 1);
  } finally {
    Atomics.add(control, CONTROL.done, 1);
    Atomics.notify(control, CONTROL.done);
  }
});

parentPort?.postMessage('ready');
