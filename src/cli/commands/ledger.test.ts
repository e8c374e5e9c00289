/** `rap-studio ledger …` run in-process through its commander registration. */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../../test/support/command.ts';
import { BudgetRefusedError, exitCodeFor } from '../../core/errors.ts';
import { Ledger } from '../../core/ledger/ledger.ts';
import { rawSql, requestFor, tempLedgerPath } from '../../core/ledger/testing/fixtures.ts';
import { rhoFromEpsilon } from '../../core/privacy/accounting.ts';
import { register } from './ledger.ts';

/** Runs `rap-studio ledger ARGS…` and returns stdout; rejects as the CLI would exit non-zero. */
async function cli(...args: string[]): Promise<string> {
  return (await runCommand(register, ['ledger', ...args])).stdout;
}

function datasetFile(): { file: string; ledger: string; fingerprint: string } {
  const ledger = tempLedgerPath();
  Ledger.open(ledger).close();
  const file = path.join(path.dirname(ledger), 'tiny.csv');
  const bytes = 'age,sex\n1,0\n2,1\n';
  writeFileSync(file, bytes);
  return { file, ledger, fingerprint: createHash('sha256').update(bytes).digest('hex') };
}

describe('rap-studio ledger', () => {
  it('set-cap fingerprints the file, registers it and caps it; a run is then gated by it', async () => {
    const { file, ledger, fingerprint } = datasetFile();
    const text = await cli(
      'set-cap',
      '--dataset',
      file,
      '--epsilon',
      '0.5',
      '--delta',
      '1e-7',
      '--ledger',
      ledger,
    );
    expect(text).toContain('"tiny.csv"');
    expect(text).toContain('cap ε=0.5 at δ=1e-7');
    const l = Ledger.open(ledger);
    expect(l.dataset(fingerprint)).toMatchObject({
      name: 'tiny.csv',
      rows: 0,
      cap: { epsilon: 0.5, delta: 1e-7 },
    });
    let refused: unknown;
    try {
      l.reserve(requestFor(fingerprint, rhoFromEpsilon(0.5, 1e-7) * 1.01));
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(BudgetRefusedError);
    expect(exitCodeFor(refused)).toBe(3);
    l.close();
  });

  it('list and show, as text and JSON', async () => {
    const { file, ledger, fingerprint } = datasetFile();
    await cli(
      'set-cap',
      '--dataset',
      file,
      '--epsilon',
      '1',
      '--delta',
      '1e-6',
      '--name',
      'Tiny',
      '--ledger',
      ledger,
    );
    const l = Ledger.open(ledger);
    const r = l.reserve(requestFor(fingerprint, 1e-3));
    l.close();
    const listed = await cli('list', '--ledger', ledger);
    expect(listed).toContain('"Tiny"');
    expect(listed).toContain(r.id);
    expect(listed).toMatch(/reserved .* ρ=0\.001 .* domain declared/);
    const json = JSON.parse(await cli('list', '--json', '--ledger', ledger));
    expect(json.datasets[0].totals.spentRho).toBe(1e-3);
    expect(json.releases[0]).toMatchObject({ id: r.id, workload: { hash: r.workload.hash } });
    expect(json.releases[0].workload.json).toBeUndefined();
    const shown = await cli('show', r.id.slice(0, 8), '--ledger', ledger);
    expect(shown).toContain(`Release:        ${r.id}`);
    expect(shown).toContain(r.workload.json);
    expect(JSON.parse(await cli('show', r.id, '--json', '--ledger', ledger)).release).toEqual(r);
    await expect(cli('show', 'ffffffff', '--ledger', ledger)).rejects.toThrow(/matches no release/);
  });

  it('verify passes on an intact ledger and fails (exit 1) naming the first broken link', async () => {
    const { file, ledger } = datasetFile();
    await cli('set-cap', '--dataset', file, '--epsilon', '1', '--delta', '1e-6', '--ledger', ledger);
    expect(await cli('verify', '--ledger', ledger)).toMatch(/verified: 2 events/);
    rawSql(ledger, "DROP TRIGGER datasets_identity_immutable; UPDATE datasets SET name = 'other'");
    const failure = await cli('verify', '--ledger', ledger).catch((err: Error) => err);
    expect(failure).toBeInstanceOf(Error);
    expect(exitCodeFor(failure)).toBe(1);
    expect((failure as Error).message).toMatch(
      /first broken link in table datasets, id [0-9a-f]{64}: column name/,
    );
  });

  it('export writes csv or json to a file or stdout, and rejects other formats', async () => {
    const { file, ledger } = datasetFile();
    await cli('set-cap', '--dataset', file, '--epsilon', '1', '--delta', '1e-6', '--ledger', ledger);
    const target = path.join(path.dirname(ledger), 'ledger.json');
    expect(await cli('export', '--format', 'json', '--out', target, '--ledger', ledger)).toBe('');
    expect(JSON.parse(readFileSync(target, 'utf8')).events).toHaveLength(2);
    expect(await cli('export', '--format', 'csv', '--ledger', ledger)).toMatch(
      /^id,dataset_keyed_fingerprint,/,
    );
    await expect(cli('export', '--format', 'xml', '--ledger', ledger)).rejects.toThrow(/Allowed choices/);
  });

  it('reports bad numbers and unreadable files as input errors (exit 2)', async () => {
    const { file, ledger } = datasetFile();
    const bad = await cli(
      'set-cap',
      '--dataset',
      file,
      '--epsilon',
      'lots',
      '--delta',
      '1e-6',
      '--ledger',
      ledger,
    ).catch((e: unknown) => e);
    expect(exitCodeFor(bad)).toBe(2);
    const missing = await cli(
      'set-cap',
      '--dataset',
      `${file}.nope`,
      '--epsilon',
      '1',
      '--delta',
      '1e-6',
      '--ledger',
      ledger,
    ).catch((e: unknown) => e);
    expect(exitCodeFor(missing)).toBe(2);
    expect((missing as Error).message).toBe(`${file}.nope: cannot read the file (no such file).`);
  });
});
