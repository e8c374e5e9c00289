// better-sqlite3 is a native addon: Node (tests, CLI, web mode) and Electron need builds for
// different ABIs. `ensureNodeBuild` runs before tests and web mode, `ensureElectronBuild`
// before the desktop app; each rebuilds only when the current build does not load.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

/** Path of the Electron binary if it is installed, without triggering a download. */
export function electronBinary() {
  const pkg = join(root, 'node_modules', 'electron');
  const pathFile = join(pkg, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const rel = readFileSync(pathFile, 'utf8').trim();
  const base = process.env.ELECTRON_OVERRIDE_DIST_PATH || join(pkg, 'dist');
  const full = join(base, rel);
  return existsSync(full) ? full : null;
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed with exit code ${r.status}`);
}

export function ensureNodeBuild() {
  const probe = spawnSync(process.execPath, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], {
    cwd: root,
    encoding: 'utf8',
  });
  if (probe.status === 0) return;
  process.stderr.write('better-sqlite3 is not built for this Node; rebuilding it (about 2 minutes)...\n');
  run('npm', ['rebuild', 'better-sqlite3']);
}

export function ensureElectronBuild() {
  const version = require('electron/package.json').version;
  run(process.execPath, [
    require.resolve('@electron/rebuild/lib/cli.js'),
    '--force',
    '--only',
    'better-sqlite3',
    '--version',
    version,
  ]);
}

if (process.argv[2] === 'node') ensureNodeBuild();
