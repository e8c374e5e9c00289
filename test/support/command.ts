/**
 * One `rap-studio` command run in this process through its commander registration (the module's
 * `register`), without bin/ or main(): for the command modules' own tests (src/cli/commands/*.test.ts).
 */
import { Command } from 'commander';
import { vi } from 'vitest';

/**
 * Runs `rap-studio …args` with the commands `register` adds: stdout and stderr captured (commander's
 * own usage text dropped); rejects as the CLI would exit non-zero (a usage error as CommanderError).
 */
export async function runCommand(
  register: (program: Command) => void,
  args: readonly string[],
): Promise<{ stdout: string; stderr: string }> {
  const program = new Command('rap-studio')
    .exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: () => {} });
  register(program);
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    await program.parseAsync([...args], { from: 'user' });
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return { stdout, stderr };
}
