/**
 * Scores a CSV released by `rap-studio synth` (an --insecure-seed run with every column
 * discovered) against the raw file, with bench/lib/raw-metrics.ts. The released domain is
 * recomputed by running discovery again with the run's seeded noise (`<seed>/discovery`), δ = 1/n²
 * and the default share: the same schema the run encoded against, without reading any report.
 * Also checks what the released file may hold (issue 29): "(other)" and missing values only where
 * the released domain has them, numbers inside the discovered bounds, exact integers where the
 * column is released value by value. A bench tool: it reads the private file.
 *
 * With `--schema FILE` (the run's --schema: ours, or a Frictionless Table Schema such as the one
 * `rap-studio schema from-names adult.names` writes) its declared columns are used as declared
 * (no "(other)" allowed in them) and only the others rediscovered, as the release did.
 *
 *   npx tsx bench/score-release.ts RAW SYNTHETIC EPSILON SEED [--exclude col,col] [--schema FILE]
 */
import { OTHER_CATEGORY, withOtherCategory } from '../src/core/data/encode.ts';
import { readDeclaredSchema } from '../src/core/data/schema-file.ts';
import { DEFAULT_MISSING_MARKERS, parseNumber } from '../src/core/data/values.ts';
import { splitBudget } from '../src/core/discovery/budget-split.ts';
import { DEFAULT_DISCOVERY_SHARE, discoverSchema } from '../src/core/discovery/discover.ts';
import { defaultDelta } from '../src/core/privacy/accounting.ts';
import { seededNoise } from '../src/core/privacy/noise.ts';
import { fidelity } from './lib/raw-metrics.ts';
import { readRows } from './lib/raw-pipeline.ts';

const [rawFile, synFile, eps, seed, ...rest] = process.argv.slice(2);
const option = (name: string) => {
  const i = rest.indexOf(name);
  return i >= 0 ? rest[i + 1] : undefined;
};
const exclude = new Set(option('--exclude')?.split(',') ?? []);
const schemaFile = option('--schema');
const declared = schemaFile ? (await readDeclaredSchema(schemaFile)).schema.columns : [];
const declaredNames = new Set(declared.map((c) => c.name));
const { names, rows } = await readRows(rawFile);
const syn = await readRows(synFile);
const n = rows.length;
const budget = splitBudget(Number(eps), defaultDelta(n), DEFAULT_DISCOVERY_SHARE, true);
const found = await discoverSchema(rawFile, {
  rho: budget.rhoDiscovery,
  delta: budget.deltaDiscovery,
  noise: seededNoise(`${seed}/discovery`),
  ...(declared.length > 0 && { declared }),
});
const widened = withOtherCategory(found.schema, 'other');
// A declared column is used exactly: no "(other)" is added to it.
const schema = {
  ...widened,
  columns: widened.columns.map((c, j) => (declaredNames.has(c.name) ? found.schema.columns[j] : c)),
};
const keep = names.map((name, i) => (exclude.has(name) ? -1 : i)).filter((i) => i >= 0);
const pick = (r: readonly string[]) => keep.map((i) => r[i]);
const f = fidelity(
  keep.map((i) => names[i]),
  rows.map(pick),
  syn.rows.map(pick),
  { ...schema, columns: keep.map((i) => schema.columns[i]) },
);
const missing = new Set(DEFAULT_MISSING_MARKERS);
const phantoms: string[] = [];
schema.columns.forEach((c, j) => {
  const values = syn.rows.map((r) => r[j]);
  const miss = values.filter((v) => missing.has(v)).length;
  if (miss > 0 && !c.missing) phantoms.push(`${c.name}: ${miss} missing`);
  if (c.kind === 'categorical') {
    const other = values.filter((v) => v === OTHER_CATEGORY).length;
    if (other > 0 && !c.categories.includes(OTHER_CATEGORY)) phantoms.push(`${c.name}: ${other} (other)`);
  } else {
    const lo = c.edges[0];
    const hi = c.edges[c.edges.length - 1];
    const xs = values.map(parseNumber).filter((x): x is number => x !== undefined);
    const out = xs.filter((x) => x < lo || x > hi).length;
    if (out > 0) phantoms.push(`${c.name}: ${out} outside [${lo}, ${hi}]`);
    if (c.integer && xs.some((x) => !Number.isInteger(x))) phantoms.push(`${c.name}: non-integers`);
    if (c.valueByValue) {
      const allowed = new Set((c.pieces ?? []).map((p) => p.lo));
      const bad = xs.filter((x) => !allowed.has(x)).length;
      if (bad > 0) phantoms.push(`${c.name}: ${bad} values between its released integers`);
    }
  }
});
const distinct = (j: number, rs: readonly (readonly string[])[]) => new Set(rs.map((r) => r[j])).size;
const ks = f.columns.flatMap((c) => (c.ks === undefined ? [] : [c.ks]));
const tvs = f.columns.flatMap((c) => (c.tvReleased === undefined ? [] : [c.tvReleased]));
const summary = {
  file: synFile,
  meanKs: f.meanKs,
  maxKs: Math.max(...ks),
  maxTvReleased: Math.max(...tvs),
  maxTwoWay: f.maxTwoWay,
  maxTwoWayReleased: f.maxTwoWayReleased,
  worstPair: f.worstPair,
  phantoms,
  columns: Object.fromEntries(
    f.columns.map((c) => [
      c.name,
      {
        ...(c.ks === undefined ? { tv: c.tvReleased } : { ks: c.ks }),
        distinct: `${distinct(names.indexOf(c.name), syn.rows)}/${distinct(names.indexOf(c.name), rows)}`,
        domain: domainLine(schema.columns[names.indexOf(c.name)]),
      },
    ]),
  ),
};
function domainLine(c: (typeof schema.columns)[number]): string {
  if (c.kind === 'categorical') return `${c.categories.length} cats${c.missing ? ' +missing' : ''}`;
  return `[${c.edges[0]}, ${c.edges[c.edges.length - 1]}] ${c.edges.length - 1} bins${c.valueByValue ? ' value-by-value' : ''}${c.missing ? ' +missing' : ''}`;
}
process.stdout.write(`${JSON.stringify(summary)}\n`);
