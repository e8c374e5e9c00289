/**
 * A hierarchical column's profile at the person level (discovery/hierarchical.ts): besides what
 * ColumnCounts keeps (each distinct value once per person), the number of distinct PERSONS that
 * hold each key at each level (`C34.90` and `C34.10` of one person are one person under `C34` and
 * under `C`), and under each missing marker. These counts are private; hierarchical.ts releases
 * only noisy functions of them.
 *
 * Why distinct persons per key, not the per-value counts summed: on the bounded records (≤ k rows
 * per person, release/person.ts) a person then holds at most k keys per level and adds at most 1
 * to each, so a level's counts move by at most √(2k) in ℓ2 between neighbours that differ in one
 * person, and a key held by that person alone has count 1 — the map partition selection's
 * keysPerPerson = k covers (privacy/partition-selection.ts). Summed per-value counts would let one
 * person add k to one key (sensitivity k√2, and count-k keys held by one person alone).
 */
import { type Hierarchy, keyAt } from '../data/hierarchy.ts';
import { ColumnCounts } from './profile.ts';

export class HierarchyCounts extends ColumnCounts {
  /** Per level, each key's count of distinct persons (rows, outside a person: the row level). */
  readonly keyPersons: Map<string, number>[];
  /** Per missing marker, its count of distinct persons. */
  readonly formPersons: number[];
  /** The current person's (level, key) and missing forms already counted. */
  private seen: Set<string> | undefined;

  constructor(
    name: string,
    forms: number,
    readonly hierarchy: Hierarchy,
  ) {
    super(name, forms);
    this.keyPersons = hierarchy.levels.map(() => new Map());
    this.formPersons = new Array<number>(Math.max(1, forms)).fill(0);
  }

  /** True the first time the current person reaches `id` (always true outside a person). */
  private first(id: string): boolean {
    if (!this.seen) return true;
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    return true;
  }

  /** `weight`: records holding `value` (a histogram's count, row level only, as ColumnCounts). */
  override add(value: string, isMissing: boolean, form = 0, weight = 1): void {
    super.add(value, isMissing, form, weight);
    // Past the distinct-value limit discovery refuses the column: stop keeping keys (memory).
    if (!this.values) {
      for (const m of this.keyPersons) m.clear();
      return;
    }
    if (isMissing) {
      if (this.first(`m${form}`)) this.formPersons[form] += weight;
      return;
    }
    for (let l = 0; l < this.keyPersons.length; l++) {
      const key = keyAt(this.hierarchy, value, l);
      if (key === undefined) break;
      if (!this.first(`${l}:${key}`)) continue;
      const m = this.keyPersons[l];
      m.set(key, (m.get(key) ?? 0) + weight);
    }
  }

  override startPerson(): void {
    super.startPerson();
    this.seen = new Set();
  }
}
