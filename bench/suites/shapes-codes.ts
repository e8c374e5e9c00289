/**
 * `shapes-codes` (issue 28, hierarchical codes): hospital-visits (26,580 visits) released through
 * the release pipeline at ε = 1, δ = 1/n², every column discovered privately (default share of
 * ρ), with `--hierarchy diagnosis=icd10 --hierarchy zip=postcode`; workload: the 1-way marginals
 * of diagnosis and zip and the 2-way marginals (diagnosis, ward), (zip, insurer), (age, sex),
 * n' = 5,000. Scored on the released CSV:
 * - diagnosis: share of released rows that carry at least a 3-character category of the real
 *   file (target ≥ 0.75) and share of "(other)" (≤ 0.02);
 * - zip: share of released rows that carry at least a real 3-digit prefix (≥ 0.80), and rows
 *   holding a 5-digit postcode the release did not publish (none).
 * The file's date and time columns come out as "(other)" until dates are discovered (their
 * own part); they still take their share of discovery's ρ.
 */
import path from 'node:path';
import type { CategoricalColumn } from '../../src/core/data/schema.ts';
import type { Workload } from '../../src/core/workload/types.ts';
import { SHARED_DATASETS } from '../lib/datasets.ts';
import { readRows } from '../lib/raw-pipeline.ts';
import { releaseCase } from '../lib/release-run.ts';
import type { ShapesCheck, ShapesPart } from '../lib/shapes.ts';

const FILE = path.join(SHARED_DATASETS, 'hospital-visits/visits.csv');
const OTHER = '(other)';

function workload(names: readonly string[]): Workload {
  const at = (n: string) => {
    const i = names.indexOf(n);
    if (i < 0) throw new Error(`${FILE}: no column "${n}"`);
    return i;
  };
  const sets = [['diagnosis'], ['zip'], ['diagnosis', 'ward'], ['zip', 'insurer'], ['age', 'sex']];
  return {
    thresholds: sets.map((s) => ({ features: s.map(at).sort((a, b) => a - b), r: s.length, weight: 1 })),
  };
}

const share = (xs: readonly string[], f: (x: string) => boolean) =>
  xs.filter(f).length / Math.max(1, xs.length);

export const shapesCodes: ShapesPart = {
  kind: 'shapes',
  name: 'shapes-codes',
  description:
    'shapes-codes: hospital-visits through the release pipeline, ε = 1, δ = 1/n², no schema (every column ' +
    "discovered), --hierarchy diagnosis=icd10 --hierarchy zip=postcode, n' = 5,000; targets on the released " +
    'CSV: diagnosis ≥ 75 % of rows carry at least a real 3-character category, ≤ 2 % "(other)"; zip ≥ 80 % ' +
    'carry at least a real 3-digit prefix, no postcode the release did not publish.',
  defaultSeeds: 1,
  async run(seed, workDir) {
    const { names, rows } = await readRows(FILE);
    const n = rows.length;
    const r = await releaseCase({
      data: FILE,
      schema: null,
      workload: workload(names),
      settings: { epsilon: '1', delta: String(1 / (n * n)), rows: '5000', seed: String(seed) },
      hierarchy: ['diagnosis=icd10', 'zip=postcode'],
      header: true,
      dir: workDir,
      name: 'release',
    });
    const released = await readRows(r.csvPath);
    const column = (table: { names: readonly string[]; rows: string[][] }, name: string) => {
      const j = table.names.indexOf(name);
      return table.rows.map((row) => row[j]);
    };
    const realDx = new Set(column({ names, rows }, 'diagnosis').map((v) => v.slice(0, 3)));
    const realZip = new Set(column({ names, rows }, 'zip').map((v) => v.slice(0, 3)));
    const dx = column(released, 'diagnosis');
    const zip = column(released, 'zip');
    const schema = r.outcome.schema;
    const zipColumn = schema.columns.find((c) => c.name === 'zip') as CategoricalColumn;
    const dxColumn = schema.columns.find((c) => c.name === 'diagnosis') as CategoricalColumn;
    const zipReleased = new Set(zipColumn.categories);
    const checks: ShapesCheck[] = [];
    const check = (name: string, value: number, target: string, pass: boolean) =>
      checks.push({ name, value, target, pass });
    const dxCategory = share(dx, (v) => v.length >= 3 && v !== OTHER && realDx.has(v.slice(0, 3)));
    check(
      'diagnosis: rows with at least a real 3-character category',
      dxCategory,
      '≥ 0.75',
      dxCategory >= 0.75,
    );
    const dxOther = share(dx, (v) => v === OTHER);
    check('diagnosis: rows "(other)"', dxOther, '≤ 0.02', dxOther <= 0.02);
    const zip3 = share(zip, (v) => v.length >= 3 && v !== OTHER && realZip.has(v.slice(0, 3)));
    check('zip: rows with at least a real 3-digit prefix', zip3, '≥ 0.80', zip3 >= 0.8);
    const unpublished = zip.filter((v) => v.length === 5 && !zipReleased.has(v)).length;
    check('zip: rows with a postcode not released', unpublished, '= 0', unpublished === 0);
    const byLength = (c: CategoricalColumn) => {
      const m = new Map<number, number>();
      for (const k of c.categories) if (k !== OTHER) m.set(k.length, (m.get(k.length) ?? 0) + 1);
      return [...m]
        .sort((a, b) => a[0] - b[0])
        .map(([l, k]) => `${k} of length ${l}`)
        .join(', ');
    };
    const dxDetail = r.outcome.finished.discovery?.columns.find((c) => c.name === 'diagnosis')?.detail ?? {};
    const zipDetail = r.outcome.finished.discovery?.columns.find((c) => c.name === 'zip')?.detail ?? {};
    const levels = (d: Readonly<Record<string, number | string>>) =>
      Array.from({ length: Number(d.levels ?? 0) }, (_, i) => {
        const at = `level${i + 1}`;
        return `level ${i + 1} (${d[`${at}Length`]}, ${d[`${at}Mechanism`]}): σ ${Number(d[`${at}Sigma`]).toFixed(1)}, τ ${Number(d[`${at}Threshold`]).toFixed(1)}, ${d[`${at}Released`]} keys`;
      }).join('; ');
    return {
      part: 'shapes-codes',
      seed,
      checks,
      notes: [
        `diagnosis released ${byLength(dxColumn)}${dxColumn.categories.includes(OTHER) ? ' and "(other)"' : ''}; ${levels(dxDetail)}`,
        `zip released ${byLength(zipColumn)}${zipColumn.categories.includes(OTHER) ? ' and "(other)"' : ''}; ${levels(zipDetail)}`,
      ],
      cpuSeconds: r.cpuSeconds,
    };
  },
};
