/**
 * `rap-studio ledger …`: inspect the privacy budget ledger, set a dataset's cap, check it for
 * tampering and export it for an oversight body. Every subcommand takes --ledger PATH (default:
 * the file the app uses, see defaultLedgerPath).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Command, Option } from 'commander';
import {
  isPostgresSource,
  parsePostgresDatabase,
  parsePostgresSource,
} from '../../core/counting/postgres.ts';
import { queryDatasetName, queryFingerprint } from '../../core/counting/postgres-query.ts';
import { fingerprintFile } from '../../core/data/fingerprint.ts';
import { parseFinite } from '../../core/input/numbers.ts';
import { describeDataset, fmt } from '../../core/ledger/admission.ts';
import { asLedgerError, LedgerAnchorError } from '../../core/ledger/errors.ts';
import { keyPathFor } from '../../core/ledger/key.ts';
import { BUSY_TIMEOUT_MS, Ledger, type OpenOptions } from '../../core/ledger/ledger.ts';
import { defaultLedgerPath } from '../../core/ledger/paths.ts';
import {
  type BudgetTotals,
  type DatasetRecord,
  type ReleaseRecord,
  SCHEMA_ORIGIN_WORDS,
} from '../../core/ledger/types.ts';
import { databaseDatasetName, databaseFacts } from '../../core/release/database.ts';
import { findRelease } from '../release-id.ts';

interface LedgerOpts {
  ledger?: string;
}

/** The ledger failed verification: a runtime failure (exit 1) naming the first broken link. */
export class LedgerTamperedError extends Error {
  override readonly name = 'LedgerTamperedError';
}

export function register(program: Command): void {
  const ledger = program
    .command('ledger')
    .description('The privacy budget ledger: caps, releases, tamper check and export');
  const ledgerOption = () =>
    new Option('--ledger <path>', 'ledger file (default: $RAP_STUDIO_LEDGER, else the XDG data dir)');

  ledger
    .command('list')
    .description('datasets with their budget, and every release')
    .option('--json', 'machine-readable output')
    .addOption(ledgerOption())
    .action((opts: LedgerOpts & { json?: boolean }) =>
      withLedger(opts, (l) => list(l, opts.json === true), READ_ONLY),
    );

  ledger
    .command('show')
    .description('one release in full (ID or a unique prefix of it)')
    .argument('<id>', 'release id')
    .option('--json', 'machine-readable output')
    .addOption(ledgerOption())
    .action((id: string, opts: LedgerOpts & { json?: boolean }) =>
      withLedger(opts, (l) => show(l, id, opts.json === true), READ_ONLY),
    );

  ledger
    .command('set-cap')
    .description("set (or replace) a dataset's privacy budget cap, stated as ε at δ and enforced in zCDP ρ")
    .requiredOption(
      '--dataset <file|url>',
      'the dataset file (identified by its SHA-256), or a PostgreSQL table postgres://[user@]host[:port]/db?table=[schema.]name (identified by a keyed hash of the table, its columns and row count), or a database postgres://[user@]host[:port]/db: the one dataset every synth --sql query over it spends',
    )
    .requiredOption('--epsilon <E>', 'the cap ε')
    .requiredOption('--delta <D>', 'the cap δ')
    .option(
      '--name <name>',
      "the dataset: a known dataset's name (the file then spends its budget) or a new name (default: the file name)",
    )
    .option(
      '--unit-column <column>',
      'the budget is per person, identified by this column (one person, several rows); default per row. Fixed with the cap: releases at another unit are refused',
    )
    .addOption(ledgerOption())
    .action(
      async (
        opts: LedgerOpts & {
          dataset: string;
          epsilon: string;
          delta: string;
          name?: string;
          unitColumn?: string;
        },
      ) => {
        const epsilon = parseFinite('--epsilon', opts.epsilon);
        const delta = parseFinite('--delta', opts.delta);
        if (isPostgresSource(opts.dataset) && !/[?&]table=/.test(opts.dataset)) {
          // A database without a table: the one dataset every --sql query over it spends.
          const db = parsePostgresDatabase(opts.dataset);
          const fingerprint = withLedger(opts, (l) => queryFingerprint(l.sourceKey(), db));
          const defaultName = queryDatasetName(db);
          withLedger(opts, (l) => setCap(l, { ...opts, fingerprint, epsilon, delta, defaultName }));
          return;
        }
        if (isPostgresSource(opts.dataset)) {
          // A table: its identity keyed with this ledger's key, from the catalogue and the row count.
          const pg = parsePostgresSource(opts.dataset);
          const key = withLedger(opts, (l) => l.sourceKey());
          const { facts } = await databaseFacts(pg, [], key, undefined, true);
          const defaultName = databaseDatasetName(pg);
          withLedger(opts, (l) =>
            setCap(l, { ...opts, fingerprint: facts.fingerprint, epsilon, delta, defaultName }),
          );
          return;
        }
        const fingerprint = await fingerprintFile(opts.dataset);
        withLedger(opts, (l) => setCap(l, { ...opts, fingerprint, epsilon, delta }));
      },
    );

  ledger
    .command('verify')
    .description(
      'recompute the hash chain, check every record against it and the file against its anchor (exit 1 on the first broken link)',
    )
    .addOption(ledgerOption())
    .action((opts: LedgerOpts) => verifyCommand(opts));

  ledger
    .command('export')
    .description('every dataset, release and event, for an oversight body')
    .addOption(
      new Option('--format <format>', 'csv (one row per release) or json (everything)')
        .choices(['csv', 'json'])
        .makeOptionMandatory(),
    )
    .option('--out <file>', 'write to FILE instead of standard output')
    .addOption(ledgerOption())
    .action((opts: LedgerOpts & { format: 'csv' | 'json'; out?: string }) =>
      withLedger(
        opts,
        (l) => {
          const text = l.export(opts.format);
          if (opts.out) writeFileSync(opts.out, text);
          else process.stdout.write(text);
        },
        READ_ONLY,
      ),
    );
}

/** The commands that only read: a missing or empty file is refused, never created (a mistyped path). */
const READ_ONLY: OpenOptions = { create: false };

function withLedger<T>(opts: LedgerOpts, fn: (l: Ledger) => T, openOpts: OpenOptions = {}): T {
  const l = Ledger.open(opts.ledger ?? defaultLedgerPath(), {
    onWarning: (m) => process.stderr.write(`warning: ${m}\n`),
    ...openOpts,
  });
  try {
    return fn(l);
  } catch (err) {
    // A damaged page read by the command (not at open) gets the typed message too.
    throw asLedgerError(err, l.file, BUSY_TIMEOUT_MS);
  } finally {
    l.close();
  }
}

const out = (line = '') => process.stdout.write(`${line}\n`);

function list(l: Ledger, json: boolean): void {
  const datasets = l.datasets().map((d) => ({ ...d, totals: l.totals(d.fingerprint) }));
  // The workload text can be large; `show` carries it, the list carries its hash.
  const releases = l.releases().map((r) => ({ ...r, workload: { hash: r.workload.hash } }));
  if (json) {
    out(JSON.stringify({ ledger: l.file, datasets, releases }, null, 2));
    return;
  }
  out(`Ledger ${l.file}`);
  out(datasets.length === 0 ? 'No datasets yet.' : 'Datasets:');
  for (const d of datasets) {
    out(`  ${datasetLine(d)}`);
    out(`    ${budgetLine(d.totals)}`);
  }
  if (releases.length > 0) out('Releases (every status counts against the budget):');
  const names = new Map(datasets.map((d) => [d.fingerprint, d.name]));
  for (const r of l.releases()) out(`  ${releaseLine(r, names.get(r.datasetFingerprint) ?? '?')}`);
}

function datasetLine(d: DatasetRecord): string {
  const aliases = d.aliases.length > 0 ? ` (also loaded as ${d.aliases.join(', ')})` : '';
  const rows = d.rows > 0 ? `${d.rows} rows` : 'rows not known yet';
  return `${describeDataset(d)}${aliases}, ${rows}`;
}

function budgetLine(t: BudgetTotals): string {
  const n = `${t.releases} release${t.releases === 1 ? '' : 's'}`;
  if (t.capRho === null || t.delta === null) {
    return `no cap set (runs are refused), spent ρ=${fmt(t.spentRho)} over ${n}`;
  }
  return (
    `cap ε=${fmt(t.capEpsilon as number)} at δ=${fmt(t.delta)} (ρ=${fmt(t.capRho)}); ` +
    `spent ε=${fmt(t.spentEpsilon as number)} (ρ=${fmt(t.spentRho)}) over ${n}; ` +
    `remaining ε=${fmt(t.remainingEpsilon as number)} (ρ=${fmt(t.remainingRho as number)}), ` +
    `${fmt(100 * (t.remainingShare as number))}% of the cap`
  );
}

function releaseLine(r: ReleaseRecord, dataset: string): string {
  const p = r.params;
  return [
    r.id,
    r.createdAt,
    r.status.padEnd(9),
    dataset,
    r.mechanism,
    `ε=${fmt(r.epsilon)} δ=${fmt(r.delta)} ρ=${fmt(r.rho)}`,
    `T=${p.rounds} K=${p.perRound} n'=${p.rows}`,
    SCHEMA_ORIGIN_WORDS[r.schema.origin],
    ...(unitColumn(p) ? [`unit: person (column ${unitColumn(p)})`] : []),
    ...(r.seedMode === 'insecure-seed' ? ['insecure-seed: NOT a release'] : []),
  ].join('  ');
}

/** The identifier column of a person-level release (its params.unit), or undefined (per row). */
function unitColumn(params: ReleaseRecord['params']): string | undefined {
  const column = (params as { unit?: { column?: unknown } }).unit?.column;
  return typeof column === 'string' ? column : undefined;
}

function show(l: Ledger, id: string, json: boolean): void {
  const r = findRelease(l, id);
  const dataset = l.dataset(r.datasetFingerprint);
  const totals = l.totals(r.datasetFingerprint);
  if (json) {
    out(JSON.stringify({ release: r, dataset, totals }, null, 2));
    return;
  }
  const fields: [string, string][] = [
    ['Release', r.id],
    ['Dataset', dataset ? datasetLine(dataset) : r.datasetFingerprint],
    ['Created', r.createdAt],
    ['Status', `${r.status} (since ${r.statusChangedAt})`],
    ['Mechanism', r.mechanism],
    ['Budget', `ε=${fmt(r.epsilon)} at δ=${fmt(r.delta)} (ρ=${r.rho})`],
    ['Parameters', JSON.stringify(r.params)],
    ['Workload', r.workload.hash],
    ['Schema', `${r.schema.hash} (${r.schema.origin}: ${SCHEMA_ORIGIN_WORDS[r.schema.origin]})`],
    ['Seed', r.seedMode === 'secure' ? 'secure' : 'insecure-seed (reproducible noise: NOT private)'],
    ['Backend', r.backend],
    ['App version', r.appVersion],
  ];
  if (r.status === 'committed')
    fields.push(['Output', `sha256 ${r.outputSha256}${r.outputPath ? ` (${r.outputPath})` : ''}`]);
  if (r.status === 'aborted') fields.push(['Abort reason', r.abortReason]);
  fields.push(['Chain', `prev ${r.prevHash} → ${r.rowHash}`], ['Dataset budget', budgetLine(totals)]);
  for (const [k, v] of fields) out(`${`${k}:`.padEnd(16)}${v}`);
  out(`${'Workload JSON:'.padEnd(16)}${r.workload.json}`);
}

function setCap(
  l: Ledger,
  o: {
    dataset: string;
    fingerprint: string;
    epsilon: number;
    delta: number;
    name?: string;
    /** The name when --name is not given (a database table's database/table); default the file's base name. */
    defaultName?: string;
    unitColumn?: string;
  },
): void {
  // rows = 0: not known until the first run parses the file and registers it (ensureDataset).
  // --name names the dataset: a new file named after a known dataset caps that dataset.
  const name = o.name ?? o.defaultName ?? path.basename(o.dataset);
  const known = l.ensureDataset({ fingerprint: o.fingerprint, name, rows: 0, chosen: o.name !== undefined });
  const d = l.setCap(known.fingerprint, o.epsilon, o.delta, o.unitColumn);
  out(`Cap set for ${datasetLine(d)}`);
  out(
    `  unit: ${o.unitColumn === undefined ? 'one row' : `one person, identified by column ${o.unitColumn}`}`,
  );
  out(`  ${budgetLine(l.totals(d.fingerprint))}`);
}

/** Opens without refusing on the anchor, so a rolled-back or rewritten file is reported as a failure. */
function verifyCommand(opts: LedgerOpts): void {
  try {
    withLedger(opts, verify, { ...READ_ONLY, anchorCheck: 'report' });
  } catch (err) {
    // Only a missing ledger is refused even in report mode (nothing is created in its place).
    if (err instanceof LedgerAnchorError)
      throw new LedgerTamperedError(`ledger ${err.file} FAILED verification: ${err.message}`);
    throw err;
  }
}

function verify(l: Ledger): void {
  const result = l.verify();
  if (!result.ok) {
    throw new LedgerTamperedError(
      `ledger ${l.file} FAILED verification: first broken link in table ${result.firstBrokenTable}, ` +
        `id ${result.firstBrokenId}: ${result.reason}`,
    );
  }
  out(`Ledger ${l.file} verified: ${result.rows} events, hash chain intact, every record matches it.`);
  out(`Head hash: ${result.headHash}`);
  // What release manifests carry: the same, keyed with the ledger's secret key (core/ledger/key.ts).
  const pub = l.identity();
  out(
    `As in manifests (keyed with ${keyPathFor(l.file)}): id ${pub.ledgerId ?? '-'}, head ${pub.headHash ?? '-'}`,
  );
  if (result.anchor) out(`Anchor: ${result.anchor.status} — ${result.anchor.message}`);
}
