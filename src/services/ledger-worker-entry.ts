/**
 * The ledger's worker thread (ledger-client.ts): opens the ledger and answers calls one at a
 * time. SQLite's busy wait (up to BUSY_TIMEOUT_MS for another process's lock) blocks this
 * thread only, never the app's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Ledger, type OpenOptions } from '../core/ledger/ledger.ts';
import { serializeError } from './ledger-errors.ts';

const port = parentPort;
if (!port) throw new Error('ledger-worker-entry runs as a worker thread only');
const data = workerData as { file: string; anchorFile?: string | null };
const warnings: string[] = [];
let ledger: Ledger;
try {
  const opts: OpenOptions = { onWarning: (m) => warnings.push(m) };
  ledger = Ledger.open(
    data.file,
    data.anchorFile === undefined ? opts : { ...opts, anchorFile: data.anchorFile },
  );
  port.postMessage({ type: 'ready', anchor: ledger.anchor });
} catch (err) {
  port.postMessage({ type: 'open-error', error: serializeError(err) });
  process.exit(0);
}

port.on('message', (msg: { id: number; method: string; args: unknown[] }) => {
  if (msg.method === 'close') {
    ledger.close();
    port.postMessage({ type: 'result', id: msg.id, ok: true, value: undefined });
    process.exit(0);
  }
  try {
    const fn = (ledger as unknown as Record<string, (...a: unknown[]) => unknown>)[msg.method];
    if (typeof fn !== 'function') throw new Error(`ledger worker: no method ${msg.method}`);
    const value = fn.apply(ledger, msg.args);
    port.postMessage({ type: 'result', id: msg.id, ok: true, value, warnings: warnings.splice(0) });
  } catch (err) {
    port.postMessage({
      type: 'result',
      id: msg.id,
      ok: false,
      error: serializeError(err),
      warnings: warnings.splice(0),
    });
  }
});
