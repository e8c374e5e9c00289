// `npm test`: every unit, property, CLI and end-to-end test (vitest), then one plain closing
// line "tests: N passed, N failed, N skipped". Exits non-zero on any failure.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './native.mjs';

const out = join(root, 'test-results');
mkdirSync(out, { recursive: true });
const report = join(out, 'vitest.json');
const r = spawnSync(
  process.execPath,
  [
    join(root, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: 'inherit' },
);
let summary = null;
try {
  const j = JSON.parse(readFileSync(report, 'utf8'));
  summary = {
    passed: j.numPassedTests,
    failed: j.numFailedTests,
    skipped: j.numPendingTests + j.numTodoTests,
  };
} catch {
  // no report: vitest failed before running tests; the exit code below says so.
}
if (summary)
  console.log(`tests: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`);
const failed = r.status !== 0 || !summary || summary.failed > 0 || summary.passed === 0;
process.exit(failed ? r.status || 1 : 0);
