/**
 * Writes the `scale` suite's files to a folder, for a measurement by hand (CPU profile, one way):
 * `npx tsx bench/scale-files.ts <dir> [copies]` writes adult-x<copies>.csv (adult.data repeated)
 * and adult-x<copies>-distinct.csv (no repeated record: suites/scale.ts `csv-distinct`).
 */
import { mkdir } from 'node:fs/promises';
import { makeFiles } from './suites/scale.ts';

const [dir, copies = '300'] = process.argv.slice(2);
if (!dir) {
  process.stderr.write('usage: tsx bench/scale-files.ts <dir> [copies]\n');
  process.exit(2);
}
await mkdir(dir, { recursive: true });
const files = await makeFiles(dir, Number(copies), false, true);
process.stdout.write(`${files.csv}\n${files.distinct}\n${files.rows} records each\n`);
