/**
 * Data loading benchmark: generates a 1,000,000 × 20 CSV in the temp folder (reused when it
 * is already there) and reports load time and peak RSS, for an inferred and a declared schema.
 *   npx tsx bench/data.bench.ts [rows]
 */
import { once } from 'node:events';
import { createWriteStream, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadCsv } from '../src/core/data/load.ts';
import { layoutOf } from '../src/core/data/onehot.ts';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const COLS = 20;
const file = join(tmpdir(), `rap-data-bench-${ROWS}x${COLS}.csv`);

/** Deterministic PRNG (the bench data is synthetic; no privacy meaning). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

const CITIES = ['Berlin', 'Paris', 'Roma', 'Madrid', 'Wien', 'Praha', 'Lisboa', 'Dublin', 'Oslo', 'Bern'];

/** Ten categorical columns (2 to 50 categories, some '?'), ten numeric (integers and reals). */
function cell(c: number, r: () => number): string {
  if (c < 10) {
    const k = 2 + c * 5;
    if (c % 3 === 0 && r() < 0.02) return '?';
    return c === 0 ? CITIES[Math.floor(r() * CITIES.length)] : `cat${c}_${Math.floor(r() * k)}`;
  }
  return c % 2 === 0 ? String(Math.floor(r() * 100_000)) : (r() * 1000 - 500).toFixed(3);
}

async function generate(): Promise<void> {
  const out = createWriteStream(file);
  const r = lcg(42);
  out.write(`${Array.from({ length: COLS }, (_, c) => `c${c}`).join(',')}\n`);
  for (let i = 0; i < ROWS; i++) {
    const line = `${Array.from({ length: COLS }, (_, c) => cell(c, r)).join(', ')}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** User + system CPU seconds since `start` (wall time is unreliable on a shared machine). */
function cpuSeconds(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

function mb(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

async function main(): Promise<void> {
  if (!existsSync(file)) {
    const t = performance.now();
    await generate();
    console.log(
      `generated ${file} (${mb(statSync(file).size)}) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
  }
  const size = statSync(file).size;
  console.log(`file: ${file}, ${mb(size)}, ${ROWS} rows × ${COLS} columns`);

  let t = performance.now();
  let cpu = process.cpuUsage();
  const inferred = await loadCsv(file);
  const inferSeconds = (performance.now() - t) / 1000;
  const inferCpu = cpuSeconds(cpu);
  console.log(
    `inferred schema (2 passes): ${inferSeconds.toFixed(2)} s, ${(size / 2 ** 20 / inferSeconds).toFixed(1)} MiB/s of file, ` +
      `CPU ${inferCpu.toFixed(2)} s, n = ${inferred.dataset.n}, one-hot width ${layoutOf(inferred.dataset.schema).width}, peak RSS ${mb(process.resourceUsage().maxRSS * 1024)}`,
  );
  const schema = { ...inferred.dataset.schema, origin: 'declared' as const };
  t = performance.now();
  cpu = process.cpuUsage();
  const declared = await loadCsv(file, { schema });
  const declaredSeconds = (performance.now() - t) / 1000;
  const declaredCpu = cpuSeconds(cpu);
  console.log(
    `declared schema (1 pass): ${declaredSeconds.toFixed(2)} s, CPU ${declaredCpu.toFixed(2)} s, n = ${declared.dataset.n}, ` +
      `peak RSS ${mb(process.resourceUsage().maxRSS * 1024)}`,
  );
  const codeBytes = declared.dataset.codes.reduce((s, c) => s + c.byteLength, 0);
  console.log(`codes: ${mb(codeBytes)} for ${declared.dataset.n} rows`);
}

await main();
