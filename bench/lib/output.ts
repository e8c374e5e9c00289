/** Where results go: per-run JSON and the report under --out, the latest table under bench/results. */
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './datasets.ts';
import type { BenchResult } from './types.ts';

/** Default --out: under bench-results/tmp/, which git ignores. */
export function defaultOutDir(suite: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  return path.join(REPO_ROOT, 'bench-results', 'tmp', `${suite}-${stamp}`);
}

export function latestTablePath(suite: string): string {
  return path.join(REPO_ROOT, 'bench', 'results', `latest-${suite}.md`);
}

export function fileNameFor(id: string): string {
  return id.replace(/[^A-Za-z0-9._=-]+/g, '_');
}

export function describeMachine(): string {
  const cpus = os.cpus();
  const mem = (os.totalmem() / 2 ** 30).toFixed(0);
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${mem} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`;
}

/** Writes via a temporary file, so a crash never leaves half a file behind. */
export async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}

/**
 * A suite's Markdown report: written as `table.md` in its run folder, as its latest table
 * (bench/results/latest-<suite>.md) when `--latest` asked and a case ran, and printed.
 */
export async function publishReport(
  outDir: string,
  latestPath: string,
  report: string,
  latest: boolean,
): Promise<void> {
  await writeAtomically(path.join(outDir, 'table.md'), report);
  if (latest) await writeAtomically(latestPath, report);
  process.stdout.write(report);
}

export async function writeRunJson(outDir: string, result: BenchResult): Promise<string> {
  const file = path.join(outDir, 'runs', `${fileNameFor(result.case.id)}.json`);
  await writeAtomically(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

export function profilePath(outDir: string, id: string): string {
  return path.join(outDir, 'profiles', `${fileNameFor(id)}.cpuprofile`);
}

/** Results saved by earlier runs (DIR/runs/*.json), for --from. */
export async function readStoredResults(dirs: readonly string[]): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const dir of dirs) {
    const runs = path.join(dir, 'runs');
    let names: string[];
    try {
      names = (await readdir(runs)).filter((n) => n.endsWith('.json')).sort();
    } catch {
      throw new Error(`--from ${dir}: no runs/ folder with results there`);
    }
    for (const name of names)
      results.push(JSON.parse(await readFile(path.join(runs, name), 'utf8')) as BenchResult);
  }
  return results;
}
