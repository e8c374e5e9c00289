/**
 * `rap-studio` command line. Each command group lives in ./commands/*.ts and exports
 * `register(program)`. Exit codes: 0 ok, 1 runtime failure, 2 bad input, 3 budget refused.
 */
import { Command, CommanderError } from 'commander';
import { exitCodeFor } from '../core/errors.ts';
import { APP_VERSION } from '../shared/version.ts';

type Registrar = (program: Command) => void;

async function loadRegistrars(): Promise<Registrar[]> {
  // Each command module is optional while the product grows; a missing one is skipped.
  const names = ['schema', 'workload', 'answers', 'synth', 'evaluate', 'ledger'];
  const out: Registrar[] = [];
  for (const name of names) {
    try {
      const mod = (await import(`./commands/${name}.ts`)) as { register: Registrar };
      out.push(mod.register);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    }
  }
  return out;
}

export async function main(argv: string[]): Promise<number> {
  const program = new Command('rap-studio')
    .description('Differentially private synthetic data with Relaxed Adaptive Projection')
    .version(APP_VERSION)
    .exitOverride()
    .showHelpAfterError(false);
  for (const register of await loadRegistrars()) register(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) return 0;
      return 2; // commander already printed the usage error
    }
    const code = exitCodeFor(err);
    process.stderr.write(`rap-studio: ${(err as Error).message}\n`);
    if (code === 1 && process.env.RAP_STUDIO_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
    return code;
  }
}
