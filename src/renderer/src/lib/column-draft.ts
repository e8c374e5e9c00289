/**
 * A column's domain as the editor drafts it (the Schema step's Edit / Declare…, and the Data
 * step's database columns): the categories one per line, or a numeric column's bin edges (typed,
 * or filled equal-width from lower, upper and bins), integers or not, and a missing category.
 * The services check the result again (the schema file's rules).
 */
import type { ColumnView } from '../../../shared/api';

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
