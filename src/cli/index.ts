/**
 * `rap-studio` command line. Each command group lives in ./commands/*.ts and exports
 * `register(program)`. Exit codes: 0 ok, 1 runtime failure, 2 bad input, 3 budget refused.
 */
import { Command, CommanderError } from 'commander';
import { exitCodeFor } from '../core/errors.ts';
import { APP_VERSION } from '../core/version.ts';

type Registrar = (program: Command) => void;
type CommandModule = { readonly register: Registrar };

/**
 * The command modules, each under its own name. Written as literal imports so that the layering
 * test sees every edge and a module that fails to load fails loudly; a function each so that a
 * call naming one command loads only that module: each pulls in a different part of the core
 * (tfjs, SQLite, …) and start-up time matters for scripts that call the CLI many times.
 */
export const COMMANDS = {
  schema: () => import('./commands/schema.ts'),
  workload: () => import('./commands/workload.ts'),
  answers: () => import('./commands/answers.ts'),
  synth: () => import('./commands/synth.ts'),
  evaluate: () => import('./commands/evaluate.ts'),
  ledger: () => import('./commands/ledger.ts'),
  report: () => import('./commands/report.ts'),
} as const satisfies Record<string, () => Promise<CommandModule>>;

type CommandName = keyof typeof COMMANDS;
const isCommand = (name: string | undefined): name is CommandName =>
  name !== undefined && Object.hasOwn(COMMANDS, name);

async function loadRegistrars(argv: readonly string[]): Promise<Registrar[]> {
  const names = isCommand(argv[0]) ? [argv[0]] : (Object.keys(COMMANDS) as CommandName[]);
  return Promise.all(names.map(async (name) => (await COMMANDS[name]()).register));
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
