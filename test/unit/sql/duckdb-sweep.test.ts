/**
 * A DuckDB session's private folder after a SIGKILL (no exit hook runs): the next process's first
 * session under the same parent removes it (sql/duckdb.ts sweepOnce, core/private-folder.ts),
 * and leaves a live process's folder and a folder without our marker alone.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPrivateFolder, OWNER_MARKER, removeStaleFolders } from '../../../src/core/private-folder.ts';
import { openDuckDb } from '../../../src/core/sql/duckdb.ts';

const base = mkdtempSync(join(tmpdir(), 'rap-sweep-test-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A child holding a session under `parent`, and that session's folder. */
async function holdSession(parent: string) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'fixtures/hold-session.ts'), parent],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const folder = await new Promise<string>((ok, fail) => {
    child.stdout.once('data', (d: Buffer) => ok(d.toString().trim()));
    child.once('exit', (code) => fail(new Error(`the child exited (${code}) before opening a session`)));
  });
  return { child, folder };
}

describe("a DuckDB session's private folder after a crash", () => {
  it('SIGKILL leaves it; the next process’s first session under that parent removes it', async () => {
    const parent = join(base, 'killed');
    mkdirSync(parent);
    const { child, folder } = await holdSession(parent);
    expect(existsSync(join(folder, OWNER_MARKER))).toBe(true);
    const exited = new Promise((ok) => child.once('exit', ok));
    child.kill('SIGKILL');
    await exited;
    expect(existsSync(folder)).toBe(true); // no exit hook ran
    // Not ours: a folder with our prefix but no marker (another tool's, or from before markers).
    const unmarked = join(parent, 'rap-duckdb-unmarked');
    mkdirSync(unmarked);
    const session = await openDuckDb({ tempParent: parent });
    try {
      expect(existsSync(folder)).toBe(false);
      expect(existsSync(unmarked)).toBe(true);
      expect(readdirSync(parent).sort()).toEqual(
        [session.spill.slice(parent.length + 1), 'rap-duckdb-unmarked'].sort(),
      );
    } finally {
      await session.close();
    }
  });

  it("a live process's folder stays", async () => {
    const parent = join(base, 'live');
    mkdirSync(parent);
    const { child, folder } = await holdSession(parent);
    try {
      const session = await openDuckDb({ tempParent: parent });
      await session.close();
      expect(existsSync(folder)).toBe(true);
    } finally {
      const exited = new Promise((ok) => child.once('exit', ok));
      child.kill('SIGKILL');
      await exited;
    }
  });

  it('removeStaleFolders: only our prefix, our marker, a gone owner', () => {
    const parent = join(base, 'rule');
    mkdirSync(parent);
    const gone = createPrivateFolder(parent, 'rap-x-');
    writeFileSync(join(gone, OWNER_MARKER), JSON.stringify({ app: 'rap-studio', pid: 999_999_999 }));
    const live = createPrivateFolder(parent, 'rap-x-');
    writeFileSync(join(live, OWNER_MARKER), JSON.stringify({ app: 'rap-studio', pid: 4242 }));
    const other = createPrivateFolder(parent, 'rap-y-');
    writeFileSync(join(other, OWNER_MARKER), JSON.stringify({ app: 'rap-studio', pid: 999_999_999 }));
    const mine = createPrivateFolder(parent, 'rap-x-'); // this process's
    expect(removeStaleFolders(parent, 'rap-x-', (pid) => pid === 4242)).toEqual([gone]);
    for (const kept of [live, other, mine]) expect(existsSync(kept)).toBe(true);
  });
});
