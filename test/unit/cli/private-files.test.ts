/**
 * Files that hold private values or exact statistics of them are readable by their owner alone
 * (umask 022 here, as on a default desktop): the private report, `answers`, `schema infer --out`,
 * the ledger file and the folder created for it. And the read-only ledger commands never turn a
 * mistyped path into a new ledger.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { register as registerAnswers } from '../../../src/cli/commands/answers.ts';
import { register as registerLedger } from '../../../src/cli/commands/ledger.ts';
import { register as registerSchema } from '../../../src/cli/commands/schema.ts';
import { InputError } from '../../../src/core/errors.ts';
import { Ledger } from '../../../src/core/ledger/ledger.ts';
import { CLI_TIMEOUT, type Fixture, makeFixture, runCli, setCap, synthArgs } from '../../support/cli.ts';

const mode = (file: string) => statSync(file).mode & 0o777;

let fx: Fixture;
let oldUmask: number;
beforeAll(() => {
  oldUmask = process.umask(0o022);
  fx = makeFixture(60);
});
afterAll(() => {
  process.umask(oldUmask);
  fx.cleanup();
});
afterEach(() => vi.restoreAllMocks());

async function run(register: (p: Command) => void, ...args: string[]): Promise<string> {
  let out = '';
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
    out += String(s);
    return true;
  });
  const program = new Command('rap-studio').exitOverride().configureOutput({ writeErr: () => {} });
  register(program);
  try {
    await program.parseAsync(args, { from: 'user' });
  } finally {
    vi.restoreAllMocks();
  }
  return out;
}

describe('private outputs are 0600, their folders 0700', () => {
  it('schema infer --out: 0600', async () => {
    const out = path.join(fx.dir, 'inferred.json');
    await run(registerSchema, 'schema', 'infer', path.join(fx.dir, 'data.csv'), '--out', out);
    expect(mode(out)).toBe(0o600);
  });

  it('answers --out: 0600', async () => {
    const out = path.join(fx.dir, 'answers.bin');
    const at = (f: string) => path.join(fx.dir, f);
    await run(
      registerAnswers,
      'answers',
      '--data',
      at('data.csv'),
      '--domain',
      at('domain.json'),
      '--workload',
      at('w.json'),
      '--out',
      out,
    );
    expect(mode(out)).toBe(0o600);
  });

  it('a new ledger: file 0600 in a created folder 0700', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'rap-modes-'));
    const file = path.join(root, 'made', 'for', 'it', 'ledger.sqlite');
    Ledger.open(file).close();
    expect(mode(file)).toBe(0o600);
    expect(mode(path.dirname(file))).toBe(0o700);
    expect(mode(path.join(root, 'made'))).toBe(0o700);
    rmSync(root, { recursive: true, force: true });
  });

  it('an existing ledger readable by others is tightened to 0600 when opened', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'rap-modes-'));
    const file = path.join(root, 'ledger.sqlite');
    Ledger.open(file).close();
    chmodSync(file, 0o644);
    Ledger.open(file).close();
    expect(mode(file)).toBe(0o600);
    rmSync(root, { recursive: true, force: true });
  });

  it(
    'synth: the private report 0600 (the released CSV and manifest stay readable)',
    async () => {
      const ledger = fx.ledgerPath();
      setCap(ledger, fx, 100);
      const args = [...synthArgs(ledger), '--out', 'modes.csv', '--report', 'modes.report.json'];
      const r = await runCli(args, fx.dir);
      expect(r.code, r.stderr).toBe(0);
      expect(mode(path.join(fx.dir, 'modes.report.json'))).toBe(0o600);
      expect(mode(path.join(fx.dir, 'modes.csv'))).toBe(0o644);
      expect(mode(ledger)).toBe(0o600);
      expect(mode(`${ledger}.key`)).toBe(0o600);
    },
    CLI_TIMEOUT,
  );
});

describe('read-only ledger commands never create a ledger', () => {
  for (const args of [['list'], ['show', 'abcd'], ['verify'], ['export', '--format', 'json']]) {
    it(`ledger ${args[0]} on a mistyped path: refused, nothing created`, async () => {
      const root = mkdtempSync(path.join(tmpdir(), 'rap-ro-'));
      const file = path.join(root, 'typo', 'ledgr.sqlite');
      await expect(run(registerLedger, 'ledger', ...args, '--ledger', file)).rejects.toThrow(
        /There is no privacy budget ledger at .*ledgr\.sqlite/,
      );
      expect(existsSync(path.dirname(file))).toBe(false);
      rmSync(root, { recursive: true, force: true });
    });
  }

  it('ledger list on an existing empty file: refused, the file stays empty', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'rap-ro-'));
    const file = path.join(root, 'empty.sqlite');
    writeFileSync(file, '');
    const err = await run(registerLedger, 'ledger', 'list', '--ledger', file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/is an empty file, not a privacy budget ledger/);
    expect(statSync(file).size).toBe(0);
    expect(readdirSync(root)).toEqual(['empty.sqlite']);
    rmSync(root, { recursive: true, force: true });
  });
});
