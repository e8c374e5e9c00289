/**
 * The CLI's main() run in the test's own process, for tests that need no child process (quicker,
 * and a mocked module or a test server reaches it): `cwd` as the working folder, stdout and stderr
 * captured.
 */
import { vi } from 'vitest';
import { main } from '../../src/cli/index.ts';

export interface InProcessResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function runCliInProcess(cwd: string, args: string[]): Promise<InProcessResult> {
  const err: string[] = [];
  const out: string[] = [];
  const before = process.cwd();
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err.push(String(chunk));
    return true;
  });
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out.push(String(chunk));
    return true;
  });
  process.chdir(cwd);
  try {
    const code = await main(args);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.chdir(before);
    e.mockRestore();
    o.mockRestore();
  }
}
