/**
 * What the tests of releases counted by DuckDB share (test/unit/release/counted-release.test.ts,
 * counted-formats.test.ts, person-counted-release.test.ts, memory-guard.test.ts): a temp folder of
 * the test file's own that is also the OS temp folder, so what a release leaves behind there can
 * be listed, and one release through the front door's spec (synthSpec) and releaseStraightThrough.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { type SynthFlags, synthSpec } from '../../src/cli/commands/synth.ts';
import { Ledger } from '../../src/core/ledger/ledger.ts';
import { type ReleaseHooks, releaseStraightThrough } from '../../src/core/release/release.ts';

/**
 * A folder (`dir`, removed after the file's tests) whose `tmp` folder becomes TMPDIR: DuckDB's
 * private folders (the parsed table, the spill) are made there, so each test sees exactly what a
 * release leaves behind. `left()` lists the folders there whose names start with one of `prefixes`.
 */
export function privateTempFolder(
  prefix: string,
  prefixes: readonly string[] = ['rap-duckdb-'],
): { readonly dir: string; readonly temp: string; left(): string[] } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const temp = path.join(dir, 'tmp');
  mkdirSync(temp);
  process.env.TMPDIR = temp;
  return { dir, temp, left: () => readdirSync(temp).filter((f) => prefixes.some((p) => f.startsWith(p))) };
}

/**
 * Releases as `rap-studio synth` would with `flags` (`out` names the CSV), the ledger at
 * `<dir>/<tag>.sqlite` (no anchor file) and the private report at `<dir>/<tag>.report.json`:
 * the CSV's bytes, the report and the manifest's text.
 */
export async function releaseFromFlags(
  dir: string,
  tag: string,
  flags: Record<string, unknown>,
  hooks: ReleaseHooks = {},
) {
  const spec = await synthSpec(flags as unknown as SynthFlags);
  const ledger = Ledger.open(path.join(dir, `${tag}.sqlite`), { anchorFile: null });
  try {
    const r = await releaseStraightThrough(
      ledger,
      spec,
      { outPath: spec.outPath, reportPath: path.join(dir, `${tag}.report.json`) },
      hooks,
    );
    return {
      csv: readFileSync(spec.outPath),
      report: r.report,
      manifest: readFileSync(r.manifestPath, 'utf8'),
    };
  } finally {
    ledger.close();
  }
}
