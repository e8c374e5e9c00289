/** A schema as the Schema step shows it (src/shared/api.ts SchemaView). */
import { layoutOf } from '../core/data/onehot.ts';
import { describeSchemaOrigin, domainSizes, type Schema } from '../core/data/schema.ts';
import { declaredColumns } from '../core/discovery/not-dp.ts';
import type { ColumnView, SchemaView } from '../shared/api.ts';

export function schemaView(schema: Schema): SchemaView {
  const columns: ColumnView[] = schema.columns.map((c) => {
    const temporal = c.temporal ? { temporal: { ...c.temporal } } : {};
    return c.kind === 'categorical'
      ? { name: c.name, kind: 'categorical', categories: [...c.categories], missing: c.missing, ...temporal }
      : {
          name: c.name,
          kind: 'numeric',
          edges: [...c.edges],
          integer: c.integer,
          missing: c.missing,
          ...temporal,
        };
  });
  return {
    origin: schema.origin,
    confirmedFromInferred: schema.confirmedFromInferred === true,
    originText: describeSchemaOrigin(schema),
    columns,
    declaredColumns: declaredColumns(schema).map((c) => c.name),
    sizes: domainSizes(schema),
    oneHotWidth: layoutOf(schema).width,
  };
}
