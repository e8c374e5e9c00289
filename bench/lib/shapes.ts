/**
 * Parts of the `shapes` suite (issue 28): each part releases a file of a given shape through the
 * release pipeline (release-run.ts: the spec module, seeded INSECURE noise, a throwaway ledger)
 * and checks the released CSV against stated targets. A part runs alone as its own suite
 * (`npm run bench -- --suite shapes-codes`); the `shapes` suite composes the parts.
 */
import path from 'node:path';
import type { BenchArgs } from './args.ts';
import { seedList } from './cases.ts';
import { describeMachine, fileNameFor, publishReport, writeAtomically } from './output.ts';
import { formatNumber } from './table.ts';

export interface ShapesCheck {
  readonly name: string;
  readonly value: number;
  /** The target in words, e.g. "≥ 0.75". */
  readonly target: string;
  readonly pass: boolean;
}

export interface ShapesPartResult {
  readonly part: string;
  readonly seed: number;
  readonly checks: readonly ShapesCheck[];
  /** Public facts of the run worth a line (thresholds, categories per level, …). */
  readonly notes: readonly string[];
  readonly cpuSeconds: number;
}

export interface ShapesPart {
  readonly kind: 'shapes';
  readonly name: string;
  readonly description: string;
  readonly defaultSeeds: number;
  run(seed: number, workDir: string): Promise<ShapesPartResult>;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/** One table per part: a row per check, a column per seed. */
export function shapesTable(results: readonly ShapesPartResult[]): string {
  const out: string[] = [];
  const parts = [...new Set(results.map((r) => r.part))];
  for (const part of parts) {
    const rs = results.filter((r) => r.part === part);
    out.push(`### ${part}\n`);
    out.push(`| check | target | ${rs.map((r) => `seed ${r.seed}`).join(' | ')} |`);
    out.push(`| --- | --- | ${rs.map(() => '---').join(' | ')} |`);
    for (const [i, c] of rs[0].checks.entries()) {
      const cells = rs.map((r) => `${formatNumber(r.checks[i].value)} ${r.checks[i].pass ? '✓' : '✗'}`);
      out.push(`| ${c.name} | ${c.target} | ${cells.join(' | ')} |`);
    }
    out.push(`| CPU s | | ${rs.map((r) => formatNumber(r.cpuSeconds)).join(' | ')} |`);
    out.push('');
    for (const r of rs) for (const n of r.notes) out.push(`- seed ${r.seed}: ${n}`);
    out.push('');
  }
  return out.join('\n');
}

export async function runShapesParts(
  parts: readonly ShapesPart[],
  name: string,
  args: BenchArgs,
  outDir: string,
  latestPath: string,
  command: string,
): Promise<number> {
  const seeds = seedList(args.seeds ?? Math.max(...parts.map((p) => p.defaultSeeds)));
  const results: ShapesPartResult[] = [];
  const failures: string[] = [];
  for (const part of parts) {
    for (const seed of seeds) {
      const id = `${part.name}/s${seed}`;
      log(`${id}`);
      try {
        const r = await part.run(seed, path.join(outDir, 'releases', fileNameFor(id)));
        await writeAtomically(path.join(outDir, 'runs', `${fileNameFor(id)}.json`), `${JSON.stringify(r)}\n`);
        results.push(r);
        log(`    done: ${r.checks.map((c) => `${c.name} ${formatNumber(c.value)}`).join(', ')}`);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        failures.push(`${id}: ${message}`);
        log(`    FAILED: ${message}`);
      }
    }
  }
  const report = [
    `# Benchmark: ${name}\n`,
    ...parts.map((p) => `${p.description}\n`),
    `- Command: \`${command}\``,
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${describeMachine()} (shared: compare CPU s, not wall time)`,
    ...(failures.length ? [`- Failed: ${failures.join('; ')}`] : []),
    '',
    shapesTable(results),
  ].join('\n');
  await publishReport(outDir, latestPath, report, args.latest && results.length > 0);
  return failures.length > 0 ? 1 : 0;
}
