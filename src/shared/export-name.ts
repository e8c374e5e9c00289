/**
 * The app's default export name: `<input less its extension>-synthetic.<format>`, the format the
 * input's where RAP Studio writes it (Parquet, Excel .xlsx, SPSS .sav, Stata .dta), CSV otherwise
 * (CSV and SAS inputs). The name's extension picks the written format (core/release/output-format.ts).
 */
export function defaultExportName(datasetName: string): string {
  const ext = /\.(parquet|xlsx|sav|dta)$/i.exec(datasetName)?.[1]?.toLowerCase() ?? 'csv';
  return `${datasetName.replace(/\.[^.]*$/, '')}-synthetic.${ext}`;
}
