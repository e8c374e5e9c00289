/**
 * `scale-data` (issue 31): a raw file far beyond the engine's own work, through the front door.
 * adult.data × 300 (9.77M rows, 1.19 GB, no header) released by `rap-studio synth` (a child
 * process: discovery, counting, engine, decoding, ledger) from the CSV and from a Parquet copy
 * (both counted inside the release by the embedded DuckDB, release/counted-source.ts), no schema, ε = 1, δ = 1/n², 32 random 3-way
 * marginals, n' = 1000, seeded (INSECURE: a benchmark releases nothing). Beside them, DuckDB's
 * one-scan count of the workload's 32 tables and 15 one-way marginals (the counting SQL of
 * src/core/sql) from each file. Reported: CPU seconds (user + system, the engine's process
 * included) and peak RSS, from the kernel's accounting of the child (`/usr/bin/time`); never
 * wall time (the machine is shared). The × 3,000 case (97.7M rows, ~12 GB) is generated, run
 * and deleted only when asked for: `--filter x3000`.
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
import { describeMachine, writeAtomically } from '../lib/output.ts';
import { formatNumber } from '../lib/table.ts';

export const SCALE_DATA_SUITE = 'scale-data';
const ADULT = path.join(SHARED_DATASETS, 'adult-raw/adult.data');
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(REPO, 'bin/rap-studio.mjs');
const COLUMNS = 15;

type Way = 'csv' | 'parquet' | 'duckdb-count-csv' | 'duckdb-count-parquet';

interface ScaleCase {
  readonly id: string;
  readonly copies: number;
  readonly way: Way;
}

interface ScaleResult {
  readonly case: ScaleCase;
  readonly rows: number;
  readonly cpuSeconds: number;
  readonly peakRssMb: number;
  readonly note: string;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

function cases(filter: readonly string[]): ScaleCase[] {
  const ways: Way[] = ['csv', 'parquet', 'duckdb-count-csv', 'duckdb-count-parquet'];
  const all = [1, 300, 3000].flatMap((copies) =>
    ways.map((way) => ({ id: `scale-data/adult-x${copies}/${way}`, copies, way })),
  );
  // × 300 by default. × 3,000 (needs ~25 GB of free disk while it runs) and × 1 (a smoke test of
  // the suite itself) only when the filter names them: --filter x3000, --filter x1/.
  const named = (copies: number) =>
    filter.some((f) => f.split(',').some((t) => `adult-x${copies}/`.includes(t) || t === `x${copies}`));
  return all.filter((c) => (c.copies === 300 || named(c.copies)) && matchesFilter(c.id, filter));
}

/** adult.data repeated `copies` times (blank lines dropped), and a Parquet copy of it. */
async function makeFiles(
  dir: string,
  copies: number,
): Promise<{ csv: string; parquet: string; rows: number }> {
  const csv = path.join(dir, `adult-x${copies}.csv`);
  const parquet = path.join(dir, `adult-x${copies}.parquet`);
  const text = (await readFile(ADULT, 'utf8'))
    .split('\n')
    .filter((l) => l.trim() !== '')
    .join('\n');
  const block = `${text}\n`;
  const rows = text.split('\n').length * copies;
  if (!existsSync(csv)) {
    const out = createWriteStream(csv);
    for (let i = 0; i < copies; i++) if (!out.write(block)) await once(out, 'drain');
    out.end();
    await once(out, 'finish');
  }
  if (!existsSync(parquet)) {
    // The values as the CSV reader sees them (trimmed text), under the CSV's default names.
    const names = Array.from({ length: COLUMNS }, (_, i) => `column_${i + 1}`);
    const cols = names.map((n) => `'${n}': 'VARCHAR'`).join(', ');
    const select = names.map((n) => `trim("${n}") AS "${n}"`).join(', ');
    await withDuckDb(
      (c) =>
        c.run(
          `COPY (SELECT ${select} FROM read_csv('${csv}', header = false, auto_detect = false, delim = ',', ` +
            `columns = {${cols}})) TO '${parquet}' (FORMAT parquet)`,
        ),
      { memoryLimit: '2GB', tempParent: dir },
    );
  }
  return { csv, parquet, rows };
}

/** Runs the CLI under /usr/bin/time: CPU (user + system, children included) and peak RSS (KiB). */
async function timed(
  args: readonly string[],
  cwd: string,
): Promise<{ cpu: number; rssKb: number; out: string }> {
  const proc = spawn('/usr/bin/time', ['-f', 'RAPTIME %U %S %M', process.execPath, BIN, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  const [code] = (await once(proc, 'close')) as [number | null];
  const m = /RAPTIME ([\d.]+) ([\d.]+) (\d+)/.exec(out);
  if (code !== 0 || !m) throw new Error(`rap-studio ${args[0]} failed (exit ${code}): ${out.slice(-2000)}`);
  return { cpu: Number(m[1]) + Number(m[2]), rssKb: Number(m[3]), out };
}

async function runRelease(c: ScaleCase, dir: string, file: string, rows: number): Promise<ScaleResult> {
  const ledger = path.join(dir, `${c.way}-x${c.copies}.sqlite`);
  const name = path.basename(file);
  await timed(
    ['ledger', 'set-cap', '--dataset', file, '--epsilon', '10', '--delta', '1e-6', '--ledger', ledger],
    dir,
  );
  const out = path.join(dir, `${c.way}-x${c.copies}.out.csv`);
  const header = c.way === 'csv' ? ['--header', 'no'] : [];
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
    ],
    dir,
  );
  return {
    case: c,
    rows,
    cpuSeconds: r.cpu,
    peakRssMb: r.rssKb / 1024,
    note: `released ${name} → ${path.basename(out)}`,
  };
}

/** DuckDB's one scan: the workload's tables and every one-way marginal, grouped raw texts. */
async function runCount(c: ScaleCase, dir: string, file: string, rows: number): Promise<ScaleResult> {
  const workload = JSON.parse(await readFile(path.join(dir, 'w.json'), 'utf8')) as {
    thresholds: { features: string[] }[];
  };
  const names = Array.from({ length: COLUMNS }, (_, i) => `column_${i + 1}`);
  const byName = (n: string) => (c.way === 'duckdb-count-csv' ? csvColumnName(names.indexOf(n)) : n);
  const sets = [
    ...workload.thresholds.map((t) => t.features.map(byName)),
    ...names.map((n) => [byName(n)]),
    [],
  ];
  const rel =
    c.way === 'duckdb-count-csv'
      ? { kind: 'csv' as const, path: file, delimiter: ',', header: false, width: COLUMNS }
      : { kind: 'parquet' as const, path: file };
  const query = groupingSetsQuery(rel, sets, 'duckdb');
  const meter = new PeakRssMeter();
  const cpu0 = process.cpuUsage();
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
    peakRssMb: peak / 2 ** 20,
    note: `${query.sets.length} grouping sets in one scan, ${groups} result rows (this process's RSS, DuckDB in it)`,
  };
}

export async function runScaleDataSuite(
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
      log(`scale-data: writing adult.data × ${copies} and its Parquet copy`);
      const files = await makeFiles(work, copies);
      const w = path.join(work, 'w.json');
      await rm(w, { force: true });
      // Column names only (the file has no header: column_1 … column_15).
      await timed(
        [
          'workload',
          'random',
          '--data',
          files.csv,
          '--header',
          'no',
          '--k',
          '3',
          '--r',
          '3',
          '--size',
          '32',
        ].concat(['--seed', '1', '--out', w]),
        work,
      );
      for (const c of all.filter((x) => x.copies === copies)) {
        log(`  ${c.id}`);
        try {
          const file = c.way === 'csv' || c.way === 'duckdb-count-csv' ? files.csv : files.parquet;
          const r = c.way.startsWith('duckdb-count')
            ? await runCount(c, work, file, files.rows)
            : await runRelease(c, work, file, files.rows);
          results.push(r);
          log(`    ${formatNumber(r.cpuSeconds)} CPU s, peak RSS ${formatNumber(r.peakRssMb)} MB`);
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          failures.push(`${c.id}: ${message}`);
          log(`    FAILED: ${message}`);
        }
      }
      // The generated files are deleted after their cases (the × 3,000 CSV alone is ~12 GB).
      await rm(files.csv, { force: true });
      await rm(files.parquet, { force: true });
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const report = [
    `# Benchmark: ${SCALE_DATA_SUITE}\n`,
    "adult.data repeated (no header, no schema) released through `rap-studio synth` at ε = 1, δ = 1/n², 32 random 3-way marginals, n' = 1000, seeded (insecure: nothing is released): from the CSV (streaming reader) and from a Parquet copy (embedded DuckDB); beside them DuckDB's one-scan count of the workload's tables and one-way marginals.\n",
    `- Command: \`${command}\``,
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${describeMachine()} (shared: CPU seconds and peak RSS only, no wall time)`,
    ...(failures.length ? [`- Not in the table: ${failures.join('; ')}`] : []),
    '',
    '| case | rows | CPU s | peak RSS (MB) | what |',
    '| --- | ---: | ---: | ---: | --- |',
    ...results.map(
      (r) =>
        `| ${r.case.id} | ${r.rows.toLocaleString('en-US')} | ${formatNumber(r.cpuSeconds)} | ${formatNumber(r.peakRssMb)} | ${r.note} |`,
    ),
    '',
  ].join('\n');
  await writeAtomically(path.join(outDir, 'table.md'), report);
  if (args.latest && results.length > 0) await writeAtomically(latestPath, report);
  process.stdout.write(report);
  return failures.length > 0 ? 1 : 0;
}
