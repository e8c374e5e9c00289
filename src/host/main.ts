/**
 * Starts web mode: the renderer and the main-side services on http://127.0.0.1:PORT/?token=…
 * Used by `npm start` when the Electron binary is missing, and by the end-to-end tests.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { defaultLedgerPath } from '../core/ledger/paths.ts';
import { createServices } from '../services/services.ts';
import {
  createWorkDir,
  privateFilesRemover,
  removeOnExit,
  removeStaleWorkDirs,
} from '../services/work-dir.ts';
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
      'max-upload-bytes': { type: 'string' },
    },
  });
  // Private copies left by a start that crashed (SIGKILL, power cut) go first.
  for (const dir of removeStaleWorkDirs()) process.stderr.write(`Removed a stale private folder: ${dir}\n`);
  // The private folder for uploads and exports: a fresh temporary one unless given (tests use a
  // given one to simulate a read-only or full export folder).
  const given = values['work-dir'] ?? process.env.RAP_STUDIO_WORK_DIR;
  const workDir = given ? resolve(given) : createWorkDir();
  // Uploads are copies of private data: removed on every way out (work-dir.ts).
  let host: Awaited<ReturnType<typeof startWebHost>> | undefined;
  removeOnExit(privateFilesRemover(workDir, !given), async () => {
    await host?.close();
  });
  const ledgerPath = values.ledger ?? defaultLedgerPath();
  host = await startWebHost({
    staticDir: values.static ?? join(repoRoot, 'out/renderer'),
    resourcesDir: join(repoRoot, 'resources'),
    workDir,
    port: values.port ? Number(values.port) : 0,
    ...(values['max-upload-bytes'] ? { maxUploadBytes: Number(values['max-upload-bytes']) } : {}),
    createServices: (hooks) => createServices({ mode: 'web', ledgerPath, workDir, ...hooks }),
  });
  process.stdout.write(`RAP Studio (web mode) is running at ${host.url}\n`);
  process.stdout.write(`Ledger: ${ledgerPath}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runWebMode(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`rap-studio web mode failed to start: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
