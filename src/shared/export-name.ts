/**
 * The app's default export name: `<input less its extension>-synthetic.<format>`, the format the
 * input's where RAP Studio writes it (Parquet, Excel .xlsx), CSV otherwise (CSV, SPSS, Stata, SAS
 * inputs). The name's extension picks the written format (core/release/output-format.ts).
 */
export function defaultExportName(datasetName: string): string {
  const ext = /\.(parquet|xlsx)$/i.exec(datasetName)?.[1]?.toLowerCase() ?? 'csv';
  return `${datasetName.replace(/\.[^.]*$/, '')}-synthetic.${ext}`;
}
