/** The suites `npm run bench -- --suite NAME` knows. Add a suite: a file exporting a Suite, and a line here. */

import type { PremSuite } from '../lib/prem-run.ts';
import type { RawSuite } from '../lib/raw-run.ts';
import type { ShapesPart } from '../lib/shapes.ts';
import type { Suite } from '../lib/types.ts';
import { future } from './future.ts';
import { paper } from './paper.ts';
import { prem } from './prem.ts';
import { quick } from './quick.ts';
import { raw, rawShare } from './raw.ts';
import { scale } from './scale.ts';
import { shapesCodes } from './shapes-codes.ts';
import { shapesSchema } from './shapes-schema.ts';
import { sota } from './sota.ts';

export const SUITES: ReadonlyMap<string, Suite> = new Map(
  [quick, paper, scale, sota, future].map((s) => [s.name, s]),
);

/** Whole raw-CSV release pipelines (discovery, engine, decoding) measured against the raw file. */
export const RAW_SUITES: ReadonlyMap<string, RawSuite> = new Map(
  [raw, rawShare, shapesSchema].map((s) => [s.name, s]),
);

/** Release-pipeline suites of the relative-error pass and its certificate (issue 30). */
export const PREM_SUITES: ReadonlyMap<string, PremSuite> = new Map([prem].map((s) => [s.name, s]));

/** Parts of the `shapes` suite (issue 28), each also a suite of its own (bench/lib/shapes.ts). */
export const SHAPES_PARTS: ReadonlyMap<string, ShapesPart> = new Map([shapesCodes].map((p) => [p.name, p]));
