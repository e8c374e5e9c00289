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

function forward(child) {
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code) => process.exit(code ?? 0));
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
