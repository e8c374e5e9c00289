/**
 * `scale` (issue 31's acceptance): a raw file far beyond the engine's own work, through the
 * front door. adult.data × 300 (9.77M records, 1.19 GB, its header row once) released by
 * `rap-studio synth` (a child process: discovery, counting, engine, decoding, ledger), no schema,
 * ε = 1, δ = 1/n², 32 random 3-way marginals, n' = 1000, seeded (INSECURE: a benchmark releases
 * nothing), four ways: from the CSV counted by the embedded DuckDB (the default path,
 * release/counted-source.ts), from the CSV read by the streaming reader (the path before DuckDB:
 * `synth --counting streaming`, a hidden benchmarking flag; the same release, privacy untouched),
 * from a Parquet copy, from a copy with no repeated record (`csv-distinct`: each copy's fnlwgt
 * shifted by its index × 1,000,000), and DuckDB's one-scan count of the workload's tables and one-way
 * marginals (the counting SQL of src/core/sql) from each file, beside them. Reported: CPU seconds
 * (user + system, the engine's process included) and peak RSS of the largest process, from the
 * kernel's accounting of the child (`/usr/bin/time`), and wall seconds, meaningful only on a
 * quiet machine. The × 3,000 case (97.7M records, ~12 GB: DuckDB's release and count from the
 * CSV) is generated, run and deleted only when asked for: `--filter x3000`; `--filter x1/` is a
 * smoke test of the suite.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { csvColumnName, groupingSetsQuery } from '../../src/core/sql/counting.ts';
import { withDuckDb } from '../../src/core/sql/duckdb.ts';
import type { BenchArgs } from '../lib/args.ts';
import { matchesFilter } from '../lib/cases.ts';
import { SHARED_DATASETS } from '../lib/datasets.ts';
import { PeakRssMeter } from '../lib/memory.ts';
import { describeMachine, publishReport } from '../lib/output.ts';
import { formatNumber } from '../lib/table.ts';

export const SCALE_SUITE = 'scale';
const ADULT = path.join(SHARED_DATASETS, 'adult-raw/adult.data');
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(REPO, 'bin/rap-studio.mjs');
const COLUMNS = 15;

/**
 * `csv-distinct`: the same size, but each copy's fnlwgt shifted by the copy's index × 1,000,000
 * (adult's fnlwgt is below 1,500,000), so no record repeats and fnlwgt has copies × 21,648
 * distinct texts (6.5M at × 300): a repeated file is loaded as distinct records with counts
 * (counting/source-table.ts), so this is what a file of that size with a continuous column costs.
 */
const DISTINCT_SHIFT = 1_000_000;
type Way = 'csv' | 'csv-distinct' | 'csv-streaming' | 'parquet' | 'duckdb-count-csv' | 'duckdb-count-parquet';

interface ScaleCase {
  readonly id: string;
  readonly copies: number;
  readonly way: Way;
}

interface ScaleResult {
  readonly case: ScaleCase;
  readonly rows: number;
  readonly cpuSeconds: number;
  readonly wallSeconds: number;
  readonly peakRssMb: number;
  readonly note: string;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

function cases(filter: readonly string[]): ScaleCase[] {
  const ways: Way[] = [
    'csv',
    'csv-distinct',
    'csv-streaming',
    'parquet',
    'duckdb-count-csv',
    'duckdb-count-parquet',
  ];
  // × 3,000: DuckDB's ways from the CSV only (the streaming release would take ~20 minutes, and a
  // Parquet copy ~10 GB more of disk).
  const at = (copies: number): Way[] => (copies === 3000 ? ['csv', 'duckdb-count-csv'] : ways);
  const all = [1, 300, 3000].flatMap((copies) =>
    at(copies).map((way) => ({ id: `scale/adult-x${copies}/${way}`, copies, way })),
  );
  // × 300 by default. × 3,000 (needs ~25 GB of free disk while it runs) and × 1 (a smoke test of
  // the suite itself) only when the filter names them: --filter x3000, --filter x1/.
  const named = (copies: number) =>
    filter.some((f) => f.split(',').some((t) => `adult-x${copies}/`.includes(t) || t === `x${copies}`));
  return all.filter((c) => (c.copies === 300 || named(c.copies)) && matchesFilter(c.id, filter));
}

interface Files {
  readonly csv: string;
  /** The distinct-records copy (`csv-distinct`), where asked. */
  readonly distinct: string;
  readonly parquet: string;
  readonly rows: number;
  /** The header's column names (trimmed, as the CSV reader and the workload name them). */
  readonly names: readonly string[];
}

/**
 * adult.data's header row, then its records (blank lines dropped) `copies` times, as the issue's
 * file (/tmp/x300.sh); and, where asked, a Parquet copy of it.
 */
export async function makeFiles(
  dir: string,
  copies: number,
  withParquet: boolean,
  withDistinct: boolean,
): Promise<Files> {
  const csv = path.join(dir, `adult-x${copies}.csv`);
  const distinct = path.join(dir, `adult-x${copies}-distinct.csv`);
  const parquet = path.join(dir, `adult-x${copies}.parquet`);
  const [head, ...records] = (await readFile(ADULT, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  const names = head.split(',').map((n) => n.trim());
  if (names.length !== COLUMNS) throw new Error(`${ADULT}: expected ${COLUMNS} columns in its header`);
  const block = `${records.join('\n')}\n`;
  const rows = records.length * copies;
  if (!existsSync(csv)) {
    const out = createWriteStream(csv);
    out.write(`${head}\n`);
    for (let i = 0; i < copies; i++) if (!out.write(block)) await once(out, 'drain');
    out.end();
    await once(out, 'finish');
  }
  if (withDistinct && !existsSync(distinct)) {
    const fnlwgt = names.indexOf('fnlwgt');
    const fields = records.map((r) => r.split(','));
    const out = createWriteStream(distinct);
    out.write(`${head}\n`);
    for (let i = 0; i < copies; i++) {
      const shifted = fields.map((f) =>
        f.map((v, j) => (j === fnlwgt ? ` ${Number(v) + i * DISTINCT_SHIFT}` : v)).join(','),
      );
      if (!out.write(`${shifted.join('\n')}\n`)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
  }
  if (withParquet && !existsSync(parquet)) {
    // The values as the CSV reader sees them (trimmed text), under the header's names.
    const cols = names.map((n) => `'${n}': 'VARCHAR'`).join(', ');
    const select = names.map((n) => `trim("${n}") AS "${n}"`).join(', ');
    await withDuckDb(
      (c) =>
        c.run(
          `COPY (SELECT ${select} FROM read_csv('${csv}', header = true, auto_detect = false, delim = ',', ` +
            `columns = {${cols}})) TO '${parquet}' (FORMAT parquet)`,
        ),
      { memoryLimit: '2GB', tempParent: dir },
    );
  }
  return { csv, distinct, parquet, rows, names };
}

/**
 * Runs the CLI under /usr/bin/time: CPU (user + system, children included), wall seconds and
 * peak RSS (KiB, of the largest process: the CLI or its engine).
 */
async function timed(
  args: readonly string[],
  cwd: string,
): Promise<{ cpu: number; wall: number; rssKb: number; out: string }> {
  const proc = spawn('/usr/bin/time', ['-f', 'RAPTIME %U %S %e %M', process.execPath, BIN, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  const [code] = (await once(proc, 'close')) as [number | null];
  const m = /RAPTIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(out);
  if (code !== 0 || !m) throw new Error(`rap-studio ${args[0]} failed (exit ${code}): ${out.slice(-2000)}`);
  return { cpu: Number(m[1]) + Number(m[2]), wall: Number(m[3]), rssKb: Number(m[4]), out };
}

async function runRelease(c: ScaleCase, dir: string, file: string, rows: number): Promise<ScaleResult> {
  const ledger = path.join(dir, `${c.way}-x${c.copies}.sqlite`);
  const name = path.basename(file);
  await timed(
    ['ledger', 'set-cap', '--dataset', file, '--epsilon', '10', '--delta', '1e-6', '--ledger', ledger],
    dir,
  );
  const out = path.join(dir, `${c.way}-x${c.copies}.out.csv`);
  const header = c.way === 'parquet' ? [] : ['--header', 'yes'];
  const streaming = c.way === 'csv-streaming' ? ['--counting', 'streaming'] : [];
  const r = await timed(
    [
      'synth',
      '--data',
      file,
      ...header,
      '--workload',
      path.join(dir, 'w.json'),
      '--epsilon',
      '1',
      '--rows',
      '1000',
      '--out',
      out,
      '--ledger',
      ledger,
      '--seed',
      '1',
      '--insecure-seed',
      '--force',
      ...streaming,
    ],
    dir,
  );
  // Which reader counted: the curator's private report says (never the public files).
  const report = JSON.parse(await readFile(`${out.replace(/\.csv$/, '')}.REPORT.private.json`, 'utf8')) as {
    counting?: { by: string };
  };
  return {
    case: c,
    rows,
    cpuSeconds: r.cpu,
    wallSeconds: r.wall,
    peakRssMb: r.rssKb / 1024,
    note: `released ${name} → ${path.basename(out)}, counted by ${report.counting?.by ?? '?'}`,
  };
}

/** DuckDB's one scan: the workload's tables and every one-way marginal, grouped raw texts. */
async function runCount(c: ScaleCase, dir: string, file: string, files: Files): Promise<ScaleResult> {
  const rows = files.rows;
  const workload = JSON.parse(await readFile(path.join(dir, 'w.json'), 'utf8')) as {
    thresholds: { features: string[] }[];
  };
  const names = files.names;
  const byName = (n: string) => (c.way === 'duckdb-count-csv' ? csvColumnName(names.indexOf(n)) : n);
  const sets = [
    ...workload.thresholds.map((t) => t.features.map(byName)),
    ...names.map((n) => [byName(n)]),
    [],
  ];
  const rel =
    c.way === 'duckdb-count-csv'
      ? { kind: 'csv' as const, path: file, delimiter: ',', header: true, width: COLUMNS }
      : { kind: 'parquet' as const, path: file };
  const query = groupingSetsQuery(rel, sets, 'duckdb');
  const meter = new PeakRssMeter();
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  meter.start();
  let groups = 0;
  let counted = 0;
  await withDuckDb(
    async (conn) => {
      const result = await conn.runAndReadAll(query.sql);
      const m = query.columns.length;
      for (const row of result.getRows()) {
        groups++;
        if (row.slice(m, 2 * m).every((g) => Number(g) === 1)) counted = Number(row[2 * m]);
      }
    },
    { tempParent: dir },
  );
  const peak = meter.stop();
  const cpu = process.cpuUsage(cpu0);
  if (counted !== rows) throw new Error(`DuckDB counted ${counted} rows, expected ${rows}`);
  return {
    case: c,
    rows,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    wallSeconds: (performance.now() - wall0) / 1000,
    peakRssMb: peak / 2 ** 20,
    note: `${query.sets.length} grouping sets in one scan, ${groups} result rows (this process's RSS, DuckDB in it)`,
  };
}

export async function runScaleSuite(
  args: BenchArgs,
  outDir: string,
  latestPath: string,
  command: string,
): Promise<number> {
  const all = cases(args.filter);
  if (args.list) {
    process.stdout.write(`${all.map((c) => c.id).join('\n')}\n`);
    return 0;
  }
  const work = path.join(outDir, 'work');
  await mkdir(work, { recursive: true });
  const results: ScaleResult[] = [];
  const failures: string[] = [];
  try {
    for (const copies of [...new Set(all.map((c) => c.copies))]) {
      const cs = all.filter((x) => x.copies === copies);
      const withParquet = cs.some((x) => x.way.endsWith('parquet'));
      log(`scale: writing adult.data × ${copies}${withParquet ? ' and its Parquet copy' : ''}`);
      const files = await makeFiles(
        work,
        copies,
        withParquet,
        cs.some((x) => x.way === 'csv-distinct'),
      );
      const w = path.join(work, 'w.json');
      await rm(w, { force: true });
      // Column names only (the header's).
      await timed(
        [
          'workload',
          'random',
          '--data',
          files.csv,
          '--header',
          'yes',
          '--k',
          '3',
          '--r',
          '3',
          '--size',
          '32',
        ].concat(['--seed', '1', '--out', w]),
        work,
      );
      for (const c of cs) {
        log(`  ${c.id}`);
        try {
          const file = c.way.endsWith('parquet')
            ? files.parquet
            : c.way === 'csv-distinct'
              ? files.distinct
              : files.csv;
          const r = c.way.startsWith('duckdb-count')
            ? await runCount(c, work, file, files)
            : await runRelease(c, work, file, files.rows);
          results.push(r);
          log(
            `    ${formatNumber(r.cpuSeconds)} CPU s, ${formatNumber(r.wallSeconds)} s wall, peak RSS ${formatNumber(r.peakRssMb)} MB`,
          );
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          // The report keeps the failure's first line (a crash's stack trace goes to the log only).
          failures.push(`${c.id}: ${message.split('\n')[0].slice(0, 300)}`);
          log(`    FAILED: ${message}`);
        }
      }
      // The generated files are deleted after their cases (the × 3,000 CSV alone is ~12 GB).
      await rm(files.csv, { force: true });
      await rm(files.distinct, { force: true });
      await rm(files.parquet, { force: true });
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const report = [
    `# Benchmark: ${SCALE_SUITE}\n`,
    "adult.data repeated (its header row once, no schema) released through `rap-studio synth` at ε = 1, δ = 1/n², 32 random 3-way marginals, n' = 1000, seeded (insecure: nothing is released): from the CSV counted by the embedded DuckDB (the default), from the CSV read by the streaming reader (`--counting streaming`: the path before DuckDB), from a Parquet copy, and from a copy with no repeated record (`csv-distinct`: each copy's fnlwgt shifted by its index × 1,000,000; a repeated file is loaded as distinct records with counts); beside them DuckDB's one-scan count of the workload's tables and one-way marginals.\n",
    `- Command: \`${command}\``,
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${describeMachine()}`,
    '- Wall seconds mean something only on a quiet machine (nothing else running); CPU seconds (user + system, the engine process included) and peak RSS (of the largest process: the CLI or its engine; for a count, this process with DuckDB in it) hold on a shared one.',
    ...(failures.length ? [`- Not in the table: ${failures.join('; ')}`] : []),
    '',
    '| case | rows | wall s (quiet machine only) | CPU s | peak RSS (MB) | what |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
    ...results.map(
      (r) =>
        `| ${r.case.id} | ${r.rows.toLocaleString('en-US')} | ${formatNumber(r.wallSeconds)} | ${formatNumber(r.cpuSeconds)} | ${formatNumber(r.peakRssMb)} | ${r.note} |`,
    ),
    '',
  ].join('\n');
  await publishReport(outDir, latestPath, report, args.latest && results.length > 0);
  return failures.length > 0 ? 1 : 0;
}
