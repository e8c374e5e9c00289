/** Where the ledger lives: one file shared by the app and the CLI. */
import { homedir } from 'node:os';
import path from 'node:path';

/**
 * `$RAP_STUDIO_LEDGER` if set, else `$XDG_DATA_HOME/rap-studio/ledger.sqlite` (an XDG path must
 * be absolute, per the spec; a relative one is ignored), else `~/.local/share/rap-studio/ledger.sqlite`.
 * The directory is created by Ledger.open, not here.
 */
export function defaultLedgerPath(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.RAP_STUDIO_LEDGER;
  if (explicit) return path.resolve(explicit);
  const xdg = env.XDG_DATA_HOME;
  const dataHome = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || homedir(), '.local', 'share');
  return path.join(dataHome, 'rap-studio', 'ledger.sqlite');
}
