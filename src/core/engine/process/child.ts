/**
 * Entry point of the engine process (forked by client.ts, or by Electron's utilityProcess).
 * Runs one RAP job and exits. The engine module is imported only when `start` arrives, so the
 * child says `ready` quickly and a cancel before start costs nothing.
 */
import { secureNoise, seededNoise } from '../../privacy/noise.ts';
import type { RapInput } from '../types.ts';
import { currentPort } from './ports.ts';
import type { NoiseSpec } from './protocol.ts';
import { serveEngine } from './serve.ts';

const port = currentPort();

function crash(err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  void port
    .post({ type: 'error', kind: 'runtime', message: `engine crashed: ${message}` })
    .finally(() => process.exit(1));
}
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);
// Ctrl-C in a terminal reaches the whole process group; the host decides what a cancel means
// (it sends `cancel`, then kills us if we do not stop), so the child must not die on its own.
process.on('SIGINT', () => {});

serveEngine(port, {
  run: async (input: RapInput) => (await import('../rap.ts')).runRap(input),
  makeNoise: (spec: NoiseSpec) => (spec.mode === 'secure' ? secureNoise() : seededNoise(spec.seed)),
  exit: (code) => process.exit(code),
});
