/**
 * `synth`'s output paths are checked before the budget is reserved: each refusal exits 2 with
 * the path named, leaves the ledger as it was (event count and head hash) and touches no file.
 * --force replaces a plain file, never the input or a committed release's CSV. A temp file an
 * interrupted write left behind is removed at the next start.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../../src/core/ledger/ledger.ts';
import { PendingWrites, pendingDirFor } from '../../../src/core/release/pending-writes.ts';
import { CLI_TIMEOUT, cappedFixture, runCli, synthArgs } from '../../support/cli.ts';
import { makeReadOnly, readOnlyUnavailable } from '../../support/fs-faults.ts';

const { fx, ledger } = cappedFixture();
beforeAll(async () => {
  const first = await runCli(synthArgs(ledger, ['--out', 'released.csv']), fx.dir);
  expect(first.code, first.stderr).toBe(0);
  writeFileSync(path.join(fx.dir, 'mine.csv'), 'not a release\n');
  mkdirSync(path.join(fx.dir, 'a-folder'));
  symlinkSync(path.join(fx.dir, 'data.csv'), path.join(fx.dir, 'alias.csv'));
}, CLI_TIMEOUT);

/** The ledger's event count and head hash: unchanged means nothing was reserved. */
function ledgerState(): string {
  const l = Ledger.open(ledger, { anchorFile: null });
  try {
    const id = l.identity();
    return `${id.events}/${id.headHash}`;
  } finally {
    l.close();
  }
}

/** Every file under the fixture folder with its bytes' length and mtime (nothing touched). */
function files(dir = fx.dir): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.name.startsWith('ledger-'))
    .map((e) => {
      const p = path.join(e.parentPath, e.name);
      const s = statSync(p);
      return `${path.relative(dir, p)}:${s.size}:${s.mtimeMs}`;
    })
    .sort();
}

async function refused(extra: string[], message: RegExp): Promise<void> {
  const before = { ledger: ledgerState(), files: files() };
  const r = await runCli(synthArgs(ledger, extra), fx.dir);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).toMatch(/Nothing was reserved/);
  expect(r.stderr).not.toMatch(/reserved release/);
  expect(ledgerState()).toBe(before.ledger);
  expect(files()).toEqual(before.files);
}

describe('synth output paths, checked before reserving', { timeout: CLI_TIMEOUT }, () => {
  it('a missing folder', () => refused(['--out', 'missing/out.csv'], /missing.*does not exist/));

  it('a directory', () => refused(['--out', 'a-folder'], /synthetic CSV .*a-folder: it is a folder/));

  it.skipIf(readOnlyUnavailable !== null)('a folder that cannot be written', async () => {
    const dir = path.join(fx.dir, 'ro');
    mkdirSync(dir, { recursive: true });
    const undo = makeReadOnly(dir);
    try {
      await refused(['--out', 'ro/out.csv'], /folder .*ro is not writable/);
    } finally {
      undo();
    }
  });

  it('the private input, by its own name and through a link', async () => {
    const input = readFileSync(path.join(fx.dir, 'data.csv'));
    await refused(['--out', 'data.csv'], /it is the private input file/);
    await refused(['--out', 'alias.csv', '--force'], /it is the private input file/);
    await refused(['--out', 'x.csv', '--report', 'data.csv', '--force'], /private report .*private input/);
    expect(readFileSync(path.join(fx.dir, 'data.csv')).equals(input)).toBe(true);
  });

  it('two outputs at one path', async () => {
    await refused(['--out', 'same.csv', '--report', 'same.csv'], /also the synthetic CSV's path/);
    await refused(
      ['--out', 'same.csv', '--report', 'same.manifest.json'],
      /also the release manifest's path/,
    );
  });

  it('an existing file, without --force', () =>
    refused(['--out', 'mine.csv'], /mine\.csv: the file already exists.*--force/));

  it("--force never replaces a committed release's CSV", () =>
    refused(['--out', 'released.csv', '--force'], /committed release's CSV/));

  it('--force replaces a plain file, and the release is written and committed', async () => {
    const r = await runCli(synthArgs(ledger, ['--out', 'mine.csv', '--force']), fx.dir);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(path.join(fx.dir, 'mine.csv'), 'utf8')).not.toBe('not a release\n');
    expect(existsSync(path.join(fx.dir, 'mine.manifest.json'))).toBe(true);
  });
});

describe('an interrupted write leaves no temp file after the next start', { timeout: CLI_TIMEOUT }, () => {
  it('the next synth removes the temp file a dead writer recorded, and no other file', async () => {
    // A writer that is gone: a child process that has exited, its pid recorded by hand.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const pid = Number(dead.stdout);
    const temp = path.join(fx.dir, `.crashed.csv.${pid}.0123abcd.tmp`);
    writeFileSync(temp, 'half a release');
    const pending = pendingDirFor(ledger);
    mkdirSync(pending, { recursive: true });
    writeFileSync(path.join(pending, 'crashed.json'), JSON.stringify({ pid, token: 'x', temp }));
    // A record naming a file that is not a temp file never removes it.
    writeFileSync(
      path.join(pending, 'forged.json'),
      JSON.stringify({ pid, token: 'x', temp: path.join(fx.dir, 'mine.csv') }),
    );
    const r = await runCli(synthArgs(ledger), fx.dir);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(temp)).toBe(false);
    expect(existsSync(path.join(fx.dir, 'mine.csv'))).toBe(true);
    expect(readdirSync(pending)).toEqual([]);
    expect(readdirSync(fx.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it("a live writer's temp file is left alone", async () => {
    const dir = path.join(fx.dir, 'live');
    const writes = new PendingWrites(dir);
    const temp = path.join(fx.dir, `.live.csv.${process.pid}.0badc0de.tmp`);
    const w = await writes.track(temp);
    writeFileSync(temp, 'being written');
    expect(await writes.sweep()).toEqual([]);
    expect(existsSync(temp)).toBe(true);
    await w.done();
    expect(existsSync(temp)).toBe(false);
  });
});
