/**
 * The ledger across processes: many runs racing for the last of the budget, and a run killed
 * after its reservation. Children are real `node --import tsx` processes (testing/reserve-child.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { rhoFromEpsilon } from '../privacy/accounting.ts';
import { Ledger } from './ledger.ts';
import { fingerprintOf, tempLedgerPath } from './testing/fixtures.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../../..');
const CHILD = path.join(HERE, 'testing', 'reserve-child.ts');
const FP = fingerprintOf('adult.csv bytes');
const CAP_RHO = rhoFromEpsilon(1, 1e-6);

interface Child {
  proc: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startChild(args: string[]): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { cwd: REPO });
  const child: Child = {
    proc,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal }))),
  };
  proc.stdout?.on('data', (d) => (child.stdout += d));
  proc.stderr?.on('data', (d) => (child.stderr += d));
  return child;
}

async function until(child: Child, text: string): Promise<void> {
  while (!child.stdout.includes(text)) {
    if (child.proc.exitCode !== null) throw new Error(`child exited early: ${child.stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function cappedLedgerFile(): string {
  const file = tempLedgerPath();
  const l = Ledger.open(file);
  l.ensureDataset({ fingerprint: FP, name: 'adult.csv', rows: 48842 });
  l.setCap(FP, 1, 1e-6);
  l.close();
  return file;
}

describe('ledger across processes', () => {
  it('20 processes racing against a cap that admits 5: exactly 5 reserved, 15 refused with exit code 3', async () => {
    const file = cappedLedgerFile();
    const go = `${file}.go`;
    const children = Array.from({ length: 20 }, () =>
      startChild([file, FP, String(CAP_RHO / 5), '--go', go]),
    );
    await Promise.all(children.map((c) => until(c, 'ready')));
    writeFileSync(go, ''); // all 20 hold an open ledger; release them at once
    const exits = await Promise.all(children.map((c) => c.exited));

    const codes = exits.map((e) => e.code);
    expect(codes.filter((c) => c === 0)).toHaveLength(5);
    expect(codes.filter((c) => c === 3)).toHaveLength(15);
    for (const c of children.filter((c) => c.proc.exitCode === 3)) {
      expect(c.stderr).toMatch(/^BudgetRefusedError: Run refused: .*remaining budget ε=/);
    }
    const l = Ledger.open(file);
    const reservedIds = children.flatMap((c) => c.stdout.match(/reserved (\S+)/)?.[1] ?? []);
    expect(
      l
        .releases()
        .map((r) => r.id)
        .sort(),
    ).toEqual(reservedIds.sort());
    expect(l.releases().every((r) => r.status === 'reserved')).toBe(true);
    expect(l.totals(FP).remainingRho).toBeLessThan(1e-15);
    expect(l.verify().ok).toBe(true);
    l.close();
  }, 180_000); // 20 node processes: on a loaded 2-core machine start-up alone can pass the default 60 s

  it('a run killed with SIGKILL after reserving leaves a reserved row that stays counted', async () => {
    const file = cappedLedgerFile();
    const child = startChild([file, FP, String(CAP_RHO / 2), '--hold']);
    await until(child, 'reserved ');
    child.proc.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');

    const l = Ledger.open(file);
    const [release] = l.releases();
    expect(child.stdout).toContain(release.id);
    expect(release.status).toBe('reserved');
    expect(l.totals(FP).spentRho).toBe(CAP_RHO / 2);
    expect(l.verify().ok).toBe(true);
    l.close();
  });
});
