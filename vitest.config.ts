import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Ledger anchors (src/core/ledger/anchor.ts) of the suite's throwaway ledgers go to a temp
// folder, not the tester's ~/.config; child processes (CLI, web host) inherit it.
const env = { RAP_STUDIO_ANCHOR_DIR: join(tmpdir(), 'rap-test-anchors') };

// Two projects: fast unit/property tests and the browser end-to-end suite.
// `npm test` runs both (scripts/test.mjs); CI runs `npm test`.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/unit/**/*.test.ts'],
          environment: 'node',
          env,
          testTimeout: 60_000,
          hookTimeout: 60_000,
          pool: 'forks',
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          env,
          testTimeout: 600_000,
          hookTimeout: 120_000,
          pool: 'forks',
          fileParallelism: false,
          // expect.poll's 1 s default is shorter than a host's answer on a loaded 2-core machine
          // (a 2-way marginal counted on the private data took longer); a real failure still fails.
          expect: { poll: { timeout: 30_000 } },
        },
      },
    ],
  },
});
