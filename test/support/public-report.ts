/**
 * Reads a public release report (NAME.report.html, src/core/release/report/public-html.ts) apart:
 * the elements that carry a manifest value (`data-m` naming its path) and the rest of the page.
 * For the report's own tests and the CLI's, which check each value against the manifest.
 */

const unescapeHtml = (t: string) =>
  t
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/**
 * The page's manifest-marked elements (each one's path and text, unescaped) and the rest of it,
 * with each marked element as ⟨m⟩ and the manifest's hash as ⟨sha⟩.
 */
export function splitReport(html: string): { rest: string; marked: { path: string; text: string }[] } {
  const marked: { path: string; text: string }[] = [];
  const rest = html
    .replace(/<span data-m="([^"]*)"[^>]*>([^<]*)<\/span>/g, (_, path: string, text: string) => {
      marked.push({ path: unescapeHtml(path), text: unescapeHtml(text) });
      return '⟨m⟩';
    })
    .replace(/<span data-manifest-sha256[^>]*>[^<]*<\/span>/g, '⟨sha⟩');
  return { rest, marked };
}
