import { writeFileSync } from 'node:fs';
import { discoverSchema } from '../src/core/discovery/discover.ts';
import { seededNoise } from '../src/core/privacy/noise.ts';
const lines = ['grade,kids,hours,note'];
for (let i = 0; i < 4000; i++) lines.push([1 + (i % 16), i % 5, 20 + ((i * 7) % 80), i % 10 === 0 ? '' : i % 2 ? 'a' : 'b'].join(','));
writeFileSync('/tmp/i29/few.csv', `${lines.join('\n')}\n`);
const f = await discoverSchema('/tmp/i29/few.csv', { rho: 50, delta: 1e-6, noise: seededNoise('messy') });
const h = f.schema.columns[2] as any;
console.log(h.edges, h.pieces.slice(-3), f.columns[2].detail);
