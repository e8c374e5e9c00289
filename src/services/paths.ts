/**
 * Where the app keeps its ledger: the same file as the CLI's default, so a release made in
 * one is refused or counted in the other.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export function defaultLedgerPathForApp(env: NodeJS.ProcessEnv = process.env): string {
  if (env.RAP_STUDIO_LEDGER) return env.RAP_STUDIO_LEDGER;
  const base = env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(base, 'rap-studio', 'ledger.sqlite');
}
