/**
 * The Data and Schema steps: opening a CSV (a dialog's file or an upload), the header choice,
 * histograms, unit hints, and the schema: edited (the provenance rule is core's,
 * core/discovery/schema-edit.ts), imported, exported, confirmed.
 */

import { OTHER_TABLE_EXTENSIONS } from '../core/data/formats/format.ts';
import type { Schema } from '../core/data/schema.ts';
import { confirmSchema as confirmedSchema, schemaToJson } from '../core/data/schema-file.ts';
import { importedSchema } from '../core/data/schema-import.ts';
import { editedSchema } from '../core/discovery/schema-edit.ts';
import { InputError } from '../core/errors.ts';
import { LedgerError } from '../core/ledger/errors.ts';
import type { BudgetView, DatasetView } from '../shared/api.ts';
import type { Services } from './api-services.ts';
import type { AppState } from './app-state.ts';
import {
  applySchema,
  datasetView,
  histogram,
  type OpenedDataset,
  openDataset,
  unitHints,
  withCategoryLimit,
} from './datasets.ts';
import { budgetView, UNREGISTERED_BUDGET } from './ledger-views.ts';
import { resolveWorkload } from './workloads.ts';

/**
 * A dataset as the renderer sees it. It opens even when the ledger cannot be used (locked,
 * read-only, rolled back…): its budget then shows as unknown, and the run is refused with the
 * ledger's own message.
 */
export async function viewOf(state: AppState, ds: OpenedDataset): Promise<DatasetView> {
  let budget: BudgetView;
  try {
    budget = await budgetView(state.ledger, ds.loaded.fingerprint);
  } catch (err) {
    if (!(err instanceof LedgerError)) throw err;
    budget = UNREGISTERED_BUDGET;
  }
  return datasetView(ds, budget);
}

/** Workloads stay valid across schema edits, or the edit says which threshold breaks. */
function revalidate(ds: OpenedDataset, schema: Schema): void {
  for (const role of ['main', 'eval'] as const) {
    if (ds.workloads[role].length > 0)
      resolveWorkload(ds.workloads[role], schema, `the ${role === 'main' ? '' : 'evaluation '}workload`);
  }
}

export type DatasetService = Pick<
  Services,
  | 'pickFile'
  | 'openDataset'
  | 'setHeader'
  | 'histogram'
  | 'unitHints'
  | 'setCategoryLimit'
  | 'setSchema'
  | 'importSchema'
  | 'exportSchema'
  | 'confirmSchema'
>;

export function datasetService(state: AppState): DatasetService {
  const { ctx, datasets } = state;
  const replaceSchema = async (ds: OpenedDataset, next: Schema) => {
    revalidate(ds, next);
    await applySchema(ctx, ds, next);
    return viewOf(state, ds);
  };
  return {
    async pickFile() {
      if (!ctx.dialogs) {
        throw new InputError(
          'There is no file dialog in web mode: choose the file with the file picker or drop it on the page.',
        );
      }
      const path = await ctx.dialogs.openFile({
        title: 'Open a data file',
        filters: [
          { name: 'Data files', extensions: ['csv', 'data', 'txt', 'tsv', ...OTHER_TABLE_EXTENSIONS] },
          { name: 'CSV', extensions: ['csv', 'data', 'txt', 'tsv'] },
          { name: 'All files', extensions: ['*'] },
        ],
      });
      if (path !== null) datasets.pick(path);
      return path === null ? null : { path, name: path.split(/[\\/]/).pop() ?? path };
    },

    async openDataset(arg) {
      if (ctx.mode === 'electron' && !datasets.wasPicked(arg.path)) {
        throw new InputError(
          'Open files with "Open CSV…": only a file chosen in the file dialog can be opened.',
        );
      }
      const ds = await openDataset(ctx, arg);
      datasets.add(ds);
      return viewOf(state, ds);
    },

    async setHeader({ datasetId, header }) {
      const ds = datasets.get(datasetId);
      if (header === 'yes' && ds.loaded.summary.hasHeader) {
        ds.headerGuessed = false;
        return viewOf(state, ds);
      }
      // The file read again as the curator says: the columns (so the schema and workloads) change.
      const again = await openDataset(ctx, { path: ds.path, name: ds.fileName, header });
      const next = { ...again, id: ds.id };
      datasets.replace(next);
      return viewOf(state, next);
    },

    async histogram({ datasetId, column }) {
      return histogram(datasets.get(datasetId), column);
    },

    async unitHints({ datasetId }) {
      return unitHints(datasets.get(datasetId));
    },

    async setCategoryLimit({ datasetId, column, limit }) {
      const next = await withCategoryLimit(ctx, datasets.get(datasetId), column, limit);
      datasets.replace(next);
      return viewOf(state, next);
    },

    async setSchema({ datasetId, schema }) {
      const ds = datasets.get(datasetId);
      return replaceSchema(ds, editedSchema(schema.columns, ds.schema));
    },

    async importSchema({ datasetId, text, fileName }) {
      const ds = datasets.get(datasetId);
      return replaceSchema(ds, importedSchema(text, fileName ?? 'the schema file', ds.schema));
    },

    async exportSchema({ datasetId }) {
      const ds = datasets.get(datasetId);
      return {
        fileName: `${ds.fileName.replace(/\.[^.]*$/, '')}.schema.json`,
        text: schemaToJson(ds.schema),
      };
    },

    async confirmSchema({ datasetId }) {
      const ds = datasets.get(datasetId);
      ds.schema = confirmedSchema(ds.schema);
      return viewOf(state, ds);
    },
  };
}
