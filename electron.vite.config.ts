import { resolve } from 'node:path';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'electron-vite';

// Main and preload bundle our plain-TypeScript services; npm dependencies stay external
// (electron-vite's default), so native better-sqlite3 and tfjs load from node_modules.
export default defineConfig({
  main: {
    build: {
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src/main/index.ts'),
          'engine-child': resolve(__dirname, 'src/main/engine-child.ts'),
          // The ledger's worker thread (src/services/ledger-client.ts).
          'ledger-worker': resolve(__dirname, 'src/services/ledger-worker-entry.ts'),
          // The engine's CPU threads and GPU worker: workerFile() (kernels/threaded.ts) finds
          // them beside the module that starts them, which rollup puts in this folder's chunks.
          'chunks/thread-worker': resolve(__dirname, 'src/core/engine/kernels/thread-worker.ts'),
          'chunks/gpu-worker': resolve(__dirname, 'src/core/engine/kernels/gpu-worker.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      // A sandboxed preload cannot be an ES module: emit CommonJS.
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    build: {
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } },
    },
    plugins: [vue()],
  },
});
