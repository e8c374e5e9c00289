/**
 * Where the app keeps its ledger: the same file as the CLI's default, so a release made in
 * one is refused or counted in the other.
 */
export { defaultLedgerPath as defaultLedgerPathForApp } from '../core/ledger/paths.ts';
