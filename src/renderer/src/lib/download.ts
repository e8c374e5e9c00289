/** Saving text the services produced (schema, workload, ledger export) as a file. */
export function saveText(fileName: string, text: string, type = 'application/json'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  follow(url, fileName);
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Web mode: let the browser fetch a file the host offers (same origin, token cookie). */
export function follow(url: string, fileName: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
}

/** Reads a file the curator picked (JSON imports). */
export async function readText(file: File): Promise<string> {
  return file.text();
}
