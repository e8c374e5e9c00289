/** Malformed raw CSVs through the real CLI: exit 2 with the file and line named. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, runCli } from '../../support/cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'rap-raw-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('malformed raw CSV', () => {
  it(
    'an unclosed quote gives exit 2 naming the file and the line it opens on',
    async () => {
      const file = path.join(dir, 'quote.csv');
      writeFileSync(file, 'a,b,c\n1,"x,3\n4,5,6\n');
      const r = await runCli(['schema', 'infer', file], dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${file}, line 2: a quote (") opened on this line is never closed`);
      expect(r.stdout).toBe('');
    },
    CLI_TIMEOUT,
  );

  it(
    'inferring from zero usable rows is an error (exit 2), not an empty schema',
    async () => {
      const file = path.join(dir, 'ragged.csv');
      writeFileSync(file, 'a,b,c\n1,2\n');
      const r = await runCli(['schema', 'infer', file], dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('none of the 1 data rows could be loaded');
      expect(r.stdout).toBe('');
    },
    CLI_TIMEOUT,
  );
});
