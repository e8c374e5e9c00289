/**
 * `rap-studio` command line. Each command group lives in ./commands/*.ts and exports
 * `register(program)`. Exit codes: 0 ok, 1 runtime failure, 2 bad input, 3 budget refused.
 */
import { Command, CommanderError } from 'commander';
import { exitCodeFor } from '../core/errors.ts';
import { APP_VERSION } from '../core/version.ts';

type Registrar = (program: Command) => void;

const COMMANDS = ['schema', 'workload', 'answers', 'synth', 'evaluate', 'ledger', 'report'] as const;

/**
 * Loads the command modules. When argv names one command only that module is imported: each
 * module pulls in a different part of the core (tfjs, SQLite, …) and start-up time matters for
 * scripts that call the CLI many times.
 */
async function loadRegistrars(argv: readonly string[]): Promise<Registrar[]> {
  const named = COMMANDS.find((c) => c === argv[0]);
  const out: Registrar[] = [];
  for (const name of named ? [named] : COMMANDS) {
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
  for (const register of await loadRegistrars(argv)) register(program);
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
