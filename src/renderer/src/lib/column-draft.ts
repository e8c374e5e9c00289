/**
 * A column's domain as the editor drafts it (the Schema step's Edit / Declare…, and the Data
 * step's database columns): the categories one per line, or a numeric column's bin edges (typed,
 * or filled equal-width from lower, upper and bins), integers or not, and a missing category.
 * The services check the result again (the schema file's rules).
 */
import type { ColumnView, TemporalView } from '../../../shared/api';

export interface DomainDraft {
  categories: string;
  edges: string;
  lower: string;
  upper: string;
  bins: string;
  integer: boolean;
  missing: boolean;
}

/** An empty draft: the whole domain comes from the curator (public knowledge), none from data. */
export function emptyDomainDraft(integer = false): DomainDraft {
  return { categories: '', edges: '', lower: '', upper: '', bins: '', integer, missing: false };
}

/** A draft that starts from the column's current domain (the Schema step's Edit). */
export function domainDraftOf(c: ColumnView): DomainDraft {
  if (c.kind === 'categorical') {
    return { ...emptyDomainDraft(), categories: c.categories.join('\n'), missing: c.missing };
  }
  return {
    categories: '',
    edges: c.edges.join(', '),
    integer: c.integer,
    lower: String(c.edges[0]),
    upper: String(c.edges[c.edges.length - 1]),
    bins: String(c.edges.length - 1),
    missing: c.missing,
  };
}

/** Equal-width edges from lower, upper and bins, as the edges field's text; or what is wrong. */
export function equalWidthEdges(d: DomainDraft): { edges: string } | { problem: string } {
  const lo = Number(d.lower);
  const hi = Number(d.upper);
  const b = Number(d.bins);
  if (!(Number.isFinite(lo) && Number.isFinite(hi) && lo < hi && Number.isInteger(b) && b >= 1)) {
    return { problem: 'Give numbers with lower < upper and a whole number of bins ≥ 1.' };
  }
  const edges = Array.from({ length: b + 1 }, (_, i) => lo + ((hi - lo) * i) / b);
  return { edges: edges.map((e) => (d.integer ? Math.round(e) : Number(e.toPrecision(10)))).join(', ') };
}

/** The drafted domain as a column of `kind`; or what is wrong. */
export function domainFromDraft(
  name: string,
  kind: ColumnView['kind'],
  d: DomainDraft,
): { column: ColumnView } | { problem: string } {
  if (kind === 'categorical') {
    const categories = d.categories
      .split('\n')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    return { column: { name, kind: 'categorical', categories, missing: d.missing } };
  }
  const edges = d.edges
    .split(/[,\s]+/)
    .filter((s) => s !== '')
    .map(Number);
  if (edges.some((e) => !Number.isFinite(e))) {
    return { problem: 'Every bin edge must be a number (separate them with commas).' };
  }
  return { column: { name, kind: 'numeric', edges, integer: d.integer, missing: d.missing } };
}

/** In a line: the column's domain (the Schema step's and the database columns' "Domain"). */
export function domainText(c: ColumnView, count: (n: number) => string): string {
  if (c.kind === 'categorical') {
    const shown = c.categories.slice(0, 4).join(', ');
    return `${count(c.categories.length)} categories: ${shown}${c.categories.length > 4 ? ', …' : ''}`;
  }
  return `${count(c.edges.length - 1)} bins over [${c.edges[0]}, ${c.edges[c.edges.length - 1]}]${c.integer ? ', integers' : ''}`;
}

/** A column stated a date, time or datetime in a format (components/TemporalFields.vue); kind '' : neither. */
export interface TemporalDraft {
  kind: '' | TemporalView['kind'];
  format: string;
}

/** The draft of a column's stated date or time (none: neither). */
export function temporalDraftOf(t: TemporalView | undefined): TemporalDraft {
  return { kind: t?.kind ?? '', format: t?.format ?? '' };
}

/** The stated date or time (`temporal` absent: neither); or what is missing. */
export function temporalFromDraft(d: TemporalDraft): { temporal?: TemporalView } | { problem: string } {
  if (d.kind === '') return {};
  if (d.format.trim() === '')
    return { problem: 'Give the format of the dates or times, e.g. MM/DD/YYYY or HH:MM.' };
  return { temporal: { kind: d.kind, format: d.format.trim() } };
}

/**
 * A hierarchical code (components/HierarchyFields.vue; the CLI's --hierarchy COLUMN=LEVELS, whose
 * LEVELS text the services parse with the release's parseHierarchies): a preset or prefix lengths
 * ('custom'), or '' (not hierarchical), and whether decoding draws released full codes.
 */
export type HierarchyChoice = 'icd10' | 'postcode' | 'naics' | 'custom';
const PRESETS = ['icd10', 'postcode', 'naics'] as const;

export interface HierarchyDraft {
  choice: '' | HierarchyChoice;
  lengths: string;
  fullCodes: boolean;
}

/** The draft of a column's levels text ('' or absent: not hierarchical). */
export function hierarchyDraftOf(text: string | undefined): HierarchyDraft {
  const tokens = (text ?? '').split(',').filter((t) => t !== '');
  const fullCodes = tokens.includes('full-codes');
  const levels = tokens.filter((t) => t !== 'full-codes');
  const preset = PRESETS.find((p) => levels.length === 1 && levels[0] === p);
  return {
    choice: preset ?? (levels.length > 0 ? 'custom' : ''),
    lengths: preset ? '' : levels.join(','),
    fullCodes,
  };
}

/** The levels text for the run's settings ('' : not hierarchical); or what is missing. */
export function hierarchyFromDraft(d: HierarchyDraft): { text: string } | { problem: string } {
  if (d.choice === '') return { text: '' };
  const levels = d.choice === 'custom' ? d.lengths.replace(/\s+/g, '') : d.choice;
  if (levels === '') return { problem: 'Give the prefix lengths of the code levels, e.g. 1,3,full or 3,5.' };
  return { text: d.fullCodes ? `${levels},full-codes` : levels };
}
