/**
 * Does every record fit the columns the curator declared? A declared domain is used exactly (no
 * "(other)", no clamping: the curator said what the column holds), and n is public and fixed, so
 * a record a declared column cannot hold may be neither dropped nor silently changed: the release
 * refuses the run BEFORE reserving any budget (src/core/release/release.ts, validate).
 *
 * This reads the private file for the curator only. The first misfit's value goes into the
 * curator's error message and nowhere else (never a ledger, log or public file).
 */
import { columnEncoder } from './encode.ts';
import { columnSources } from './load.ts';
import { Rejections } from './rejections.ts';
import type { Column } from './schema.ts';
import { readTable, type TableOptions } from './table.ts';
import { DEFAULT_MISSING_MARKERS, numericParser } from './values.ts';

/**
 * Why a declared column cannot hold a value: a missing value and no missing category, a text not
 * among the categories, a text in a numeric column, a number outside the bounds.
 */
export type MisfitProblem = 'missing' | 'category' | 'not-a-number' | 'range';

/** The first record a declared column cannot hold (private: the curator's screen only). */
export interface Misfit {
  readonly line: number;
  readonly column: Column;
  readonly value: string;
  readonly problem: MisfitProblem;
  /** The record had the wrong number of fields: kept, missing in every column. */
  readonly ragged: boolean;
}

export interface FitCheck {
  /** Records read (header excluded; a row of the wrong width counts, missing in every column). */
  readonly records: number;
  /** Records at least one declared column cannot hold. */
  readonly misfits: number;
  readonly first: Misfit | null;
  /** Rows of the wrong width (kept as missing values). */
  readonly ragged: number;
}

export type FitOptions = Pick<TableOptions, 'header' | 'signal' | 'missingMarkers' | 'choice'>;

/**
 * One pass over the file: each record against each declared column, by name (or by position in
 * a headerless file as wide as the columns, as loadCsv does), rows of the wrong width kept as
 * missing everywhere (as the release keeps them).
 */
export async function checkDeclaredFit(
  file: string,
  declared: readonly Column[],
  opts: FitOptions = {},
): Promise<FitCheck> {
  const missingMarkers = opts.missingMarkers ?? DEFAULT_MISSING_MARKERS;
  const encoders = declared.map((c) => columnEncoder(c, { missingMarkers, outOfDomain: 'reject' }));
  const missing = new Set(missingMarkers);
  const problemOf = (column: Column, value: string): MisfitProblem => {
    // The encoder takes a listed category before a missing marker, so a refused marker is missing.
    if (missing.has(value)) return 'missing';
    if (column.kind === 'categorical') return 'category';
    return numericParser(column)(value) === undefined ? 'not-a-number' : 'range';
  };
  let sources: number[] = [];
  let misfits = 0;
  let first: Misfit | null = null;
  // readTable counts a row of the wrong width here just before handing it on as all missing.
  const rejections = new (class extends Rejections {
    raggedLine = -1;
    raggedRows = 0;
    override add(reason: string, line: number): void {
      super.add(reason, line);
      this.raggedLine = line;
      this.raggedRows++;
    }
  })();
  const table = await readTable(
    file,
    {
      start(shape) {
        sources =
          declared.length > 0
            ? columnSources(
                file,
                declared.map((c) => c.name),
                shape,
              )
            : [];
      },
      row(values, line) {
        for (let j = 0; j < encoders.length; j++) {
          const value = values[sources[j]];
          const code = encoders[j](value);
          if (typeof code === 'string') {
            misfits++;
            first ??= {
              line,
              column: declared[j],
              value,
              problem: problemOf(declared[j], value),
              ragged: rejections.raggedLine === line,
            };
            return;
          }
        }
      },
    },
    rejections,
    { ...opts, missingMarkers, raggedAsMissing: true },
  );
  return { records: table.rowsRead, misfits, first, ragged: rejections.raggedRows };
}
