// `npm start`: the Electron app when its binary is installed; otherwise web mode (the same
// renderer and services on a local host at 127.0.0.1 with a per-start token).
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { electronBinary, ensureElectronBuild, ensureNodeBuild, root } from './native.mjs';

function build() {
  const r = spawnSync(
    process.execPath,
    [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'],
    {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// A terminal's Ctrl-C reaches this process and the child alike (one process group); a signal
// sent to this process alone must still reach the child. So each kind is forwarded once, and
// the child (src/host/main.ts) stops on the first and ignores the rest, removing private files
// first. This process stays until the child has gone.
function forward(child) {
  const forwarded = new Set();
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      if (forwarded.has(sig)) return;
      forwarded.add(sig);
      child.kill(sig);
    });
  }
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

build();
const binary = electronBinary();
if (binary) {
  ensureElectronBuild();
  forward(spawn(binary, [root, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' }));
} else {
  console.log(
    'Electron binary not installed (it is downloaded on first launch and this machine cannot fetch it): starting web mode instead.',
  );
  ensureNodeBuild();
  forward(
    spawn(process.execPath, ['--import', 'tsx', join(root, 'src/host/main.ts'), ...process.argv.slice(2)], {
      cwd: root,
      stdio: 'inherit',
    }),
  );
}
