/**
 * The Workload step: a dataset's main and evaluation workloads, set, imported, exported, and
 * generated (all subsets, defaults, random, drifted).
 */
import { InputError } from '../core/errors.ts';
import { parseWorkloadJson, workloadToJson } from '../core/workload/workload.ts';
import type { WorkloadRole, WorkloadView } from '../shared/api.ts';
import type { Services } from './api-services.ts';
import type { AppState } from './app-state.ts';
import type { OpenedDataset } from './datasets.ts';
import {
  allSubsets,
  defaultThresholds,
  driftedThresholds,
  namedThresholds,
  randomThresholds,
  resolveWorkload,
  workloadView,
} from './workloads.ts';

/** A dataset's workload in `role` as the renderer sees it. */
export function workloadOf(ds: OpenedDataset, role: WorkloadRole): WorkloadView {
  const list = ds.workloads[role];
  return workloadView(role, list.length > 0 ? resolveWorkload(list, ds.schema) : null, ds.schema);
}

function storeWorkload(ds: OpenedDataset, role: WorkloadRole, w: ReturnType<typeof resolveWorkload> | null) {
  ds.workloads[role] = w ? namedThresholds(w, ds.schema) : [];
  return workloadView(role, w, ds.schema);
}

export type WorkloadService = Pick<
  Services,
  | 'setWorkload'
  | 'importWorkload'
  | 'exportWorkload'
  | 'allSubsets'
  | 'defaultThresholds'
  | 'randomThresholds'
  | 'driftedThresholds'
>;

export function workloadService({ datasets }: AppState): WorkloadService {
  return {
    async setWorkload({ datasetId, role, thresholds }) {
      const ds = datasets.get(datasetId);
      return storeWorkload(ds, role, thresholds.length > 0 ? resolveWorkload(thresholds, ds.schema) : null);
    },

    async importWorkload({ datasetId, role, text, fileName }) {
      const ds = datasets.get(datasetId);
      return storeWorkload(ds, role, parseWorkloadJson(text, ds.schema, fileName ?? 'the workload file'));
    },

    async exportWorkload({ datasetId, role }) {
      const ds = datasets.get(datasetId);
      if (ds.workloads[role].length === 0)
        throw new InputError('The workload is empty: add thresholds before exporting it.');
      const w = resolveWorkload(ds.workloads[role], ds.schema);
      const stem = ds.fileName.replace(/\.[^.]*$/, '');
      return {
        fileName: `${stem}.${role === 'main' ? 'workload' : 'eval-workload'}.json`,
        text: workloadToJson(w, ds.schema),
      };
    },

    async allSubsets({ datasetId, ...o }) {
      return allSubsets(datasets.get(datasetId).schema, o);
    },

    async defaultThresholds({ datasetId, target }) {
      return defaultThresholds(datasets.get(datasetId).schema, target);
    },

    async randomThresholds({ datasetId, ...o }) {
      return randomThresholds(datasets.get(datasetId).schema, o);
    },

    async driftedThresholds({ datasetId, ...o }) {
      const ds = datasets.get(datasetId);
      const history =
        ds.workloads.main.length > 0 ? resolveWorkload(ds.workloads.main, ds.schema) : { thresholds: [] };
      return driftedThresholds(ds.schema, history, o);
    },
  };
}
