import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createWorkDir,
  OWNER_MARKER,
  privateFilesRemover,
  removeStaleWorkDirs,
  WORK_DIR_PREFIX,
} from '../../../src/services/work-dir.ts';

const base = mkdtempSync(join(tmpdir(), 'rap-workdir-test-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('the private working folder', () => {
  it('SIGINT twice, then SIGTERM, during a slow stop: the folder goes at the first, the process exits 0', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'fixtures/exit-child.ts')],
      {
        env: { ...process.env, TMPDIR: base },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const dir = await new Promise<string>((ok) =>
      child.stdout.once('data', (d: Buffer) => ok(d.toString().trim())),
    );
    expect(existsSync(join(dir, 'private.csv'))).toBe(true);
    const exit = new Promise<[number | null, string | null]>((ok) =>
      child.once('exit', (c, s) => ok([c, s])),
    );
    child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(dir)).toBe(false);
    child.kill('SIGINT'); // with a `once` handler this one would kill the process mid-stop
    child.kill('SIGTERM');
    expect(await exit).toEqual([0, null]);
  });

  it('is 0700 and marked with this process as owner', () => {
    const dir = createWorkDir(base);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(existsSync(join(dir, OWNER_MARKER))).toBe(true);
  });

  it("a crashed start's folder is removed at the next start; live, unmarked and foreign ones stay", () => {
    const crashed = join(base, `${WORK_DIR_PREFIX}crashed`);
    mkdirSync(join(crashed, 'uploads', 'x'), { recursive: true });
    writeFileSync(join(crashed, 'uploads', 'x', 'private.csv'), 'age\n41\n');
    writeFileSync(join(crashed, OWNER_MARKER), JSON.stringify({ app: 'rap-studio', pid: 999_999_999 }));
    const live = join(base, `${WORK_DIR_PREFIX}live`);
    mkdirSync(live);
    writeFileSync(join(live, OWNER_MARKER), JSON.stringify({ app: 'rap-studio', pid: 4242 }));
    const unmarked = join(base, `${WORK_DIR_PREFIX}unmarked`);
    mkdirSync(unmarked);
    const other = join(base, 'something-else');
    mkdirSync(other);
    writeFileSync(join(other, OWNER_MARKER), JSON.stringify({ app: 'rap-studio', pid: 999_999_999 }));
    const mine = createWorkDir(base);
    const removed = removeStaleWorkDirs(base, (pid) => pid === 4242);
    expect(removed).toEqual([crashed]);
    expect(existsSync(crashed)).toBe(false);
    for (const d of [live, unmarked, other, mine]) expect(existsSync(d)).toBe(true);
  });

  it('on exit: the whole folder when the app made it, only the uploads of a given one', () => {
    const owned = createWorkDir(base);
    mkdirSync(join(owned, 'uploads'));
    privateFilesRemover(owned, true)();
    expect(existsSync(owned)).toBe(false);
    const given = mkdtempSync(join(base, 'given-'));
    mkdirSync(join(given, 'uploads', 'a'), { recursive: true });
    mkdirSync(join(given, 'exports'));
    privateFilesRemover(given, false)();
    expect(existsSync(join(given, 'uploads'))).toBe(false);
    expect(existsSync(join(given, 'exports'))).toBe(true);
  });
});
