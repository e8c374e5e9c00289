/**
 * The hospital-visits fixture of the person-level CLI tests (person-release, hierarchy-person): a
 * temp folder with visits.csv (the test's rows) and w.json (one 2-of-2 threshold on ward and
 * diagnosis), and the argument lists of `ledger set-cap` and `synth` on it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/** A workload file's text: one r-of-k threshold on `features`, weight 1. */
export const workloadJson = (features: readonly string[], r = 2): string =>
  JSON.stringify({ thresholds: [{ features, r, weight: 1 }] });

/**
 * A fresh folder holding visits.csv (`csv`), w.json and any `more` files (name → text); removed
 * after the test file's tests.
 */
export function visitsFolder(name: string, csv: string, more: Readonly<Record<string, string>> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), `rap-${name}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'visits.csv'), csv);
  writeFileSync(path.join(dir, 'w.json'), workloadJson(['ward', 'diagnosis']));
  for (const [file, text] of Object.entries(more)) writeFileSync(path.join(dir, file), text);
  return dir;
}

/** `ledger set-cap` on visits.csv at (ε, δ = 1e-5); `unit` as the CLI takes it (e.g. --unit-column). */
export function capArgs(ledger: string, epsilon: number, unit: readonly string[] = []): string[] {
  return [
    'ledger',
    'set-cap',
    '--dataset',
    'visits.csv',
    '--epsilon',
    String(epsilon),
    '--delta',
    '1e-5',
    '--ledger',
    ledger,
    ...unit,
  ];
}

/** `synth` on visits.csv (its header declared) at ε into `out`, charged to `ledger`; then `more`. */
export function visitsSynthArgs(
  ledger: string,
  out: string,
  epsilon: number,
  more: readonly string[] = [],
): string[] {
  return [
    'synth',
    '--data',
    'visits.csv',
    '--header',
    'yes',
    '--epsilon',
    String(epsilon),
    '--out',
    out,
    '--ledger',
    ledger,
    ...more,
  ];
}
