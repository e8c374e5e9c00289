/**
 * Starts web mode: the renderer and the main-side services on http://127.0.0.1:PORT/?token=…
 * Used by `npm start` when the Electron binary is missing, and by the end-to-end tests.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { defaultLedgerPathForApp } from '../services/paths.ts';
import { createServices } from '../services/services.ts';
import { startWebHost } from './web-host.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export async function runWebMode(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      ledger: { type: 'string' },
      static: { type: 'string' },
      'work-dir': { type: 'string' },
    },
  });
  // The private folder for uploads and exports: a fresh temporary one unless given (tests use a
  // given one to simulate a read-only or full export folder).
  const given = values['work-dir'] ?? process.env.RAP_STUDIO_WORK_DIR;
  const workDir = given ? resolve(given) : await mkdtemp(join(tmpdir(), 'rap-studio-'));
  const ledgerPath = values.ledger ?? defaultLedgerPathForApp();
  const host = await startWebHost({
    staticDir: values.static ?? join(repoRoot, 'out/renderer'),
    resourcesDir: join(repoRoot, 'resources'),
    workDir,
    port: values.port ? Number(values.port) : 0,
    createServices: (hooks) => createServices({ mode: 'web', ledgerPath, workDir, ...hooks }),
  });
  process.stdout.write(`RAP Studio (web mode) is running at ${host.url}\n`);
  process.stdout.write(`Ledger: ${ledgerPath}\n`);
  // Uploads are copies of private data: a temporary work folder goes when the host stops.
  const stop = () => {
    host
      .close()
      .then(() => (given ? undefined : rm(workDir, { recursive: true, force: true })))
      .finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runWebMode(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`rap-studio web mode failed to start: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
