/** The suites `npm run bench -- --suite NAME` knows. Add a suite: a file exporting a Suite, and a line here. */
import type { Suite } from '../lib/types.ts';
import { future } from './future.ts';
import { paper } from './paper.ts';
import { quick } from './quick.ts';
import { scale } from './scale.ts';
import { sota } from './sota.ts';

export const SUITES: ReadonlyMap<string, Suite> = new Map(
  [quick, paper, scale, sota, future].map((s) => [s.name, s]),
);
