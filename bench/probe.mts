import { splitBudget } from '../src/core/discovery/budget.ts';
import { discoverSchema } from '../src/core/discovery/discover.ts';
import { defaultDelta } from '../src/core/privacy/accounting.ts';
import { seededNoise } from '../src/core/privacy/noise.ts';
const [file, eps, seed] = process.argv.slice(2);
const n = Number(process.env.N ?? 32561);
const b = splitBudget(Number(eps), defaultDelta(n), 0.2, true);
const f = await discoverSchema(file, { rho: b.rhoDiscovery, delta: b.deltaDiscovery, noise: seededNoise(`${seed}/discovery`) });
for (const c of f.schema.columns) {
  if (c.kind === 'numeric') console.log(c.name, `[${c.edges[0]}, ${c.edges.at(-1)}]`, c.edges.length - 1, c.valueByValue ? `values ${c.pieces!.map((p) => p.lo).join(' ')}` : '', c.missing ? '+missing' : '');
  else console.log(c.name, c.categories.length, c.categories.includes('(other)') ? '+other' : '', c.missing ? '+missing' : '');
}
