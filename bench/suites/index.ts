/** The suites `npm run bench -- --suite NAME` knows. Add a suite: a file exporting a Suite, and a line here. */

import type { BenchArgs } from '../lib/args.ts';
import type { PremSuite } from '../lib/prem-run.ts';
import type { RawSuite } from '../lib/raw-run.ts';
import { runShapesParts } from '../lib/shapes.ts';
import type { Suite } from '../lib/types.ts';
import { future } from './future.ts';
import { paper } from './paper.ts';
import { prem } from './prem.ts';
import { quick } from './quick.ts';
import { raw, rawShare } from './raw.ts';
import { scaleEngine } from './scale-engine.ts';
import { shapesCodes } from './shapes-codes.ts';
import { runShapesDatesSuite, SHAPES_DATES_SUITE } from './shapes-dates.ts';
import { shapesSchema } from './shapes-schema.ts';
import { sota } from './sota.ts';

export const SUITES: ReadonlyMap<string, Suite> = new Map(
  [quick, paper, scaleEngine, sota, future].map((s) => [s.name, s]),
);

/** Whole raw-CSV release pipelines (discovery, engine, decoding) measured against the raw file. */
export const RAW_SUITES: ReadonlyMap<string, RawSuite> = new Map(
  [raw, rawShare, shapesSchema].map((s) => [s.name, s]),
);

/** Release-pipeline suites of the relative-error pass and its certificate (issue 30). */
export const PREM_SUITES: ReadonlyMap<string, PremSuite> = new Map([prem].map((s) => [s.name, s]));

/**
 * Parts of the `shapes` suite (issue 28): whole releases through the release pipeline, each run on
 * its own (`--suite shapes-dates`, `--suite shapes-codes`) and composed into `shapes`.
 */
/** The composed suite: every part of SHAPES_PARTS, then `shapes-schema` (a raw suite). */
export const SHAPES_SUITE = 'shapes';

export const SHAPES_PARTS: ReadonlyMap<string, typeof runShapesDatesSuite> = new Map([
  [SHAPES_DATES_SUITE, runShapesDatesSuite],
  [
    shapesCodes.name,
    (args: BenchArgs, outDir: string, latest: string, command: string) =>
      runShapesParts([shapesCodes], shapesCodes.name, args, outDir, latest, command),
  ],
]);
