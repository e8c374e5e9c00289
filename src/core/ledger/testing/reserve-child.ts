/**
 * A child process for the ledger's multi-process tests:
 *   node --import tsx reserve-child.ts LEDGER FINGERPRINT RHO [--go FILE] [--hold]
 * Opens the ledger, prints "ready", waits for FILE to exist (a start barrier, so all children
 * race for the lock together), reserves RHO and prints `reserved ID`. With --hold it then stays
 * alive until killed (a run killed mid-way). Exit code 3 when the budget refuses, as the CLI.
 */
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { exitCodeFor } from '../../errors.ts';
import { Ledger } from '../ledger.ts';
import { requestFor } from './fixtures.ts';

const [file, fingerprint, rhoText, ...flags] = process.argv.slice(2);
const go = flags.includes('--go') ? flags[flags.indexOf('--go') + 1] : undefined;
const hold = flags.includes('--hold');

try {
  const ledger = Ledger.open(file);
  process.stdout.write('ready\n');
  while (go && !existsSync(go)) await sleep(5);
  const release = ledger.reserve(requestFor(fingerprint, Number(rhoText)));
  process.stdout.write(`reserved ${release.id}\n`);
  if (hold) setInterval(() => {}, 60_000);
  else ledger.close();
} catch (err) {
  process.stderr.write(`${(err as Error).name}: ${(err as Error).message}\n`);
  process.exitCode = exitCodeFor(err);
}
