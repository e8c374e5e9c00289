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
 * `--exclude col,col` and `--hierarchy col=LEVELS` (repeatable) are the run's own: discovery is
 * recomputed through the release's own path (planRawSource → discoverAndLoad) with them, so the
 * budget is split over the same columns and a hierarchical column (zip=postcode) is scored as the
 * codes it was released as, real codes held by their finest released key.
 *
 *   npx tsx bench/score-release.ts RAW SYNTHETIC EPSILON SEED [--exclude col,col] [--schema FILE]
 *     [--hierarchy col=LEVELS …]
 */
import { OTHER_CATEGORY, withOtherCategory } from '../src/core/data/encode.ts';
import { readDeclaredSchema } from '../src/core/data/schema-file.ts';
import { DEFAULT_MISSING_MARKERS, parseNumber } from '../src/core/data/values.ts';
import { DEFAULT_DISCOVERY_SHARE } from '../src/core/discovery/discover.ts';
import { discoverAndLoad, planRawSource } from '../src/core/discovery/raw-source.ts';
import { defaultDelta } from '../src/core/privacy/accounting.ts';
import { seededNoise } from '../src/core/privacy/noise.ts';
import { parseHierarchies } from '../src/core/release/spec.ts';
import { fidelity } from './lib/raw-metrics.ts';
import { readRows } from './lib/raw-pipeline.ts';

const [rawFile, synFile, eps, seed, ...rest] = process.argv.slice(2);
const option = (name: string) => {
  const i = rest.indexOf(name);
  return i >= 0 ? rest[i + 1] : undefined;
};
const options = (name: string) =>
  rest.flatMap((a, i) => (a === name && i + 1 < rest.length ? [rest[i + 1]] : []));
const excluded = option('--exclude')?.split(',') ?? [];
const hierarchyEntries = options('--hierarchy');
const hierarchies = hierarchyEntries.length > 0 ? parseHierarchies(hierarchyEntries) : undefined;
const schemaFile = option('--schema');
const declared = schemaFile ? (await readDeclaredSchema(schemaFile)).schema.columns : [];
const declaredNames = new Set(declared.map((c) => c.name));
const { names: allNames, rows: allRows } = await readRows(rawFile);
const syn = await readRows(synFile);
const n = allRows.length;
// The release's own discovery path, with the run's column choice and hierarchies.
const plan = await planRawSource(
  rawFile,
  declared,
  { epsilon: Number(eps), delta: defaultDelta(n), share: DEFAULT_DISCOVERY_SHARE },
  {
    header: true,
    ...(excluded.length > 0 && { choice: { exclude: excluded } }),
    ...(hierarchies && { hierarchies }),
  },
);
const found = (await discoverAndLoad(plan, n, seededNoise(`${seed}/discovery`), { header: true })).discovery;
const widened = withOtherCategory(found.schema, 'other');
// A declared column is used exactly: no "(other)" is added to it.
const schema = {
  ...widened,
  columns: widened.columns.map((c, j) => (declaredNames.has(c.name) ? found.schema.columns[j] : c)),
};
// The released columns (the run's --exclude left out), in the released file's order.
const names = plan.header;
const keep = names.map((name) => allNames.indexOf(name));
const rows = allRows.map((r) => keep.map((i) => r[i]));
const f = fidelity(names, rows, syn.rows, schema);
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
  worstPairReleased: f.worstPairReleased,
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
