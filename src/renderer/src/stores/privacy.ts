/** The Privacy step: the curator's settings (as typed) and the public plan the services compute. */
import { defineStore } from 'pinia';
import { computed, reactive, ref, shallowRef, watch } from 'vue';
import type { DomainChoice, RunPlanView, RunSettingsInput, TextSettingName } from '../../../shared/api';
import { call } from '../api/bridge';
import { useAppStore } from './app';
import { useDataStore } from './data';

/** The form: every plain text setting of the release spec (optional: blank is the default), and the rest. */
export interface SettingsForm extends Partial<Record<TextSettingName, string>> {
  epsilon: string;
  delta: string;
  rows: string;
  rounds: string;
  perRound: string;
  oversample: string;
  mode: 'query' | 'table';
  backend: string;
  selection: 'one-shot' | 'adaptive';
  relaxation: 'sparsemax' | 'softmax';
  importance: 'none' | 'history';
  insecureSeed: string;
  /** A schema read off the data: discovered privately (default) or released over as read. */
  domain: DomainChoice;
  /** The curator's explicit override for `domain: 'as-read'` (the Schema step's checkbox). */
  allowNonPrivateDomain: boolean;
  /** The dataset picker: '' (not chosen), 'spend:NAME' (a known dataset's budget) or 'new'. */
  ledgerDataset: string;
  /** The relative-error pass: ζ (empty: no pass) and its share of ε (empty: 0.1). */
  certify: string;
  certifyShare: string;
  /** The Data step's "Can one person appear in more than one row?": the identifier column, or ''. */
  unitColumn: string;
  /** Rows kept per person: a number, or 'private' (chosen privately). */
  rowsPerPerson: string;
  /** The Schema step's "leave out": columns never read by the release, at no cost. */
  exclude: string[];
  /**
   * The Schema step's "hierarchical code": per column, its levels as the CLI's --hierarchy
   * writes them after `COLUMN=` (`icd10`, `postcode,full-codes`, `1,3,full`).
   */
  hierarchy: Record<string, string>;
}

const FORM_KEY = 'rap_privacy_form';

/** The form as last typed in this tab (survives a reload, like the run it describes). */
function savedForm(): Partial<SettingsForm> {
  try {
    return JSON.parse(sessionStorage.getItem(FORM_KEY) ?? '{}') as Partial<SettingsForm>;
  } catch {
    return {};
  }
}

export const usePrivacyStore = defineStore('privacy', () => {
  const app = useAppStore();
  const data = useDataStore();
  const form = reactive<SettingsForm>({
    epsilon: '1',
    delta: '',
    rows: '1000',
    rounds: '',
    perRound: '',
    oversample: '',
    mode: 'table',
    backend: 'auto',
    selection: 'one-shot',
    relaxation: 'sparsemax',
    importance: 'none',
    insecureSeed: '',
    domain: 'discover',
    allowNonPrivateDomain: false,
    ledgerDataset: '',
    certify: '',
    certifyShare: '',
    unitColumn: '',
    rowsPerPerson: 'private',
    exclude: [],
    hierarchy: {},
    ...savedForm(),
  });
  watch(form, () => sessionStorage.setItem(FORM_KEY, JSON.stringify(form)), { deep: true });
  // The override is given for one file's columns: another file starts from private discovery
  // again (a reload, which restores the same dataset, keeps it).
  watch(
    () => data.dataset?.id,
    (id, previous) => {
      if (id !== undefined && previous !== undefined && id !== previous) {
        form.domain = 'discover';
        form.allowNonPrivateDomain = false;
        form.ledgerDataset = '';
        form.unitColumn = '';
        form.rowsPerPerson = 'private';
        form.exclude = [];
        form.hierarchy = {};
      }
    },
  );
  const plan = shallowRef<RunPlanView | null>(null);
  const planning = ref(false);
  /**
   * The plan is stale from the moment anything it depends on changes (markStale, before the
   * re-plan's pause) until a plan asked for after that change arrives: Run waits for a current
   * plan, and so can a test, without knowing the pause.
   */
  const edits = ref(0);
  const plannedAt = ref(0);
  const stale = computed(() => planning.value || plannedAt.value !== edits.value);
  function markStale(): void {
    edits.value++;
  }
  const planError = ref<string | null>(null);
  const cap = reactive({ epsilon: '', delta: '' });
  let seq = 0;

  function settings(): RunSettingsInput {
    // Selection is a query-mode choice; table mode selects whole tables.
    const { selection, ledgerDataset, exclude, hierarchy, ...rest } = form;
    const marked = Object.entries(hierarchy).map(([column, levels]) => `${column}=${levels}`);
    return {
      ...rest,
      ...(exclude.length > 0 ? { exclude: [...exclude] } : {}),
      ...(marked.length > 0 ? { hierarchy: marked } : {}),
      ...(form.mode === 'query' ? { selection } : {}),
      ...(ledgerDataset.startsWith('spend:') ? { ledgerDataset: { spend: ledgerDataset.slice(6) } } : {}),
      ...(ledgerDataset === 'new' ? { ledgerDataset: { new: true as const } } : {}),
    };
  }

  /** Asks the services for the plan; only the latest answer counts. */
  async function refresh(): Promise<void> {
    const ds = data.dataset;
    if (!ds) {
      plan.value = null;
      return;
    }
    const mine = ++seq;
    const at = edits.value;
    planning.value = true;
    try {
      const p = await call('runPlan', { datasetId: ds.id, settings: settings() });
      if (mine === seq) {
        plan.value = p;
        plannedAt.value = at;
        planError.value = null;
      }
    } catch (err) {
      if (mine === seq) planError.value = (err as Error).message;
    } finally {
      if (mine === seq) planning.value = false;
    }
  }

  async function setCap(): Promise<boolean> {
    const ds = data.dataset;
    if (!ds) return false;
    const b = await app.guard(() =>
      call('setCap', {
        datasetId: ds.id,
        ...(settings().ledgerDataset ? { ledgerDataset: settings().ledgerDataset } : {}),
        epsilon: cap.epsilon,
        ...(cap.delta.trim() ? { delta: cap.delta } : {}),
        // The cap's unit is the Data step's answer: fixed with the cap.
        ...(form.unitColumn ? { unitColumn: form.unitColumn } : {}),
      }),
    );
    if (!b) return false;
    await data.refreshBudget();
    await refresh();
    return true;
  }

  return { form, plan, planning, stale, markStale, planError, cap, settings, refresh, setCap };
});
