/**
 * An XML scanner fed text a piece at a time (the parts of an .xlsx workbook as they are inflated):
 * it reports each start tag (local name, attributes by local name, entities decoded), end tag
 * and run of text, and holds only the unfinished tail of what it was fed, never a whole part.
 * Enough XML for the SpreadsheetML parts: comments, processing instructions and CDATA are
 * handled, a DOCTYPE is refused (no entity definitions are expanded). A tail that grows past
 * `MAX_PENDING` characters (a tag or text run no .xlsx writer makes) is a fault.
 */
import { Corrupt } from './binary.ts';

export interface XmlHandler {
  open(name: string, attrs: Readonly<Record<string, string>>): void;
  close(name: string): void;
  text(text: string): void;
}

/** Longest unfinished tag or text held between two pieces (Excel caps a cell at 32,767 characters). */
export const MAX_PENDING = 1 << 24;

const NO_ATTRS: Readonly<Record<string, string>> = Object.freeze({});
const ENTITY = /&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g;
const ATTR = /([^\s=/]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/** Text with its XML entities decoded (only the predefined ones and character references). */
export function unescapeXml(s: string): string {
  if (s.indexOf('&') < 0) return s;
  return s.replace(ENTITY, (_, e: string) => {
    switch (e) {
      case 'amp':
        return '&';
      case 'lt':
        return '<';
      case 'gt':
        return '>';
      case 'quot':
        return '"';
      case 'apos':
        return "'";
      default: {
        const code = e[1] === 'x' ? Number.parseInt(e.slice(2), 16) : Number.parseInt(e.slice(1), 10);
        if (!(code >= 0 && code <= 0x10ffff)) throw new Corrupt(`character reference &${e};`);
        return String.fromCodePoint(code);
      }
    }
  });
}

function localName(qname: string): string {
  const colon = qname.indexOf(':');
  return colon < 0 ? qname : qname.slice(colon + 1);
}

function parseAttrs(s: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  ATTR.lastIndex = 0;
  for (let m = ATTR.exec(s); m !== null; m = ATTR.exec(s)) {
    attrs[localName(m[1])] = unescapeXml(m[2] ?? m[3] ?? '');
  }
  return attrs;
}

/** Whether `s` from `from` to `to` (a tag's inside so far) has an unclosed quoted attribute value. */
function openQuote(s: string, from: number, to: number): boolean {
  let quote = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === 34 || c === 39) quote = c;
  }
  return quote !== 0;
}

export class XmlScanner {
  private pending = '';

  constructor(private readonly handler: XmlHandler) {}

  /** The next piece of the document's text. */
  write(piece: string): void {
    const s = this.pending.length > 0 ? this.pending + piece : piece;
    const h = this.handler;
    let i = 0;
    const n = s.length;
    while (i < n) {
      const lt = s.indexOf('<', i);
      if (lt < 0) break; // text to the end: it may continue in the next piece
      if (lt > i) h.text(unescapeXml(s.slice(i, lt)));
      i = lt;
      if (s.startsWith('<!--', i)) {
        const end = s.indexOf('-->', i + 4);
        if (end < 0) break;
        i = end + 3;
        continue;
      }
      if (s.startsWith('<![CDATA[', i)) {
        const end = s.indexOf(']]>', i + 9);
        if (end < 0) break;
        if (end > i + 9) h.text(s.slice(i + 9, end));
        i = end + 3;
        continue;
      }
      if (s.startsWith('<!', i)) {
        if (n - i < 9) break;
        if (s.startsWith('<!DOCTYPE', i)) throw new Corrupt('an XML part with a DOCTYPE');
        throw new Corrupt('unexpected markup');
      }
      let gt = s.indexOf('>', i + 1);
      if (gt < 0) break;
      // A '>' inside a quoted attribute value does not end the tag.
      while (gt >= 0 && openQuote(s, i, gt)) gt = s.indexOf('>', gt + 1);
      if (gt < 0) break;
      if (s.lastIndexOf('<', gt) !== i) throw new Corrupt('a "<" inside a tag');
      const c1 = s.charCodeAt(i + 1);
      if (c1 === 63 /* ? */) {
        // a processing instruction (the XML declaration): nothing to report
      } else if (c1 === 47 /* / */) {
        h.close(localName(s.slice(i + 2, gt).trim()));
      } else {
        const selfClosing = s.charCodeAt(gt - 1) === 47;
        const inner = s.slice(i + 1, selfClosing ? gt - 1 : gt);
        const space = inner.search(/\s/);
        const name = localName(space < 0 ? inner : inner.slice(0, space));
        if (name === '') throw new Corrupt('a tag without a name');
        h.open(name, space < 0 ? NO_ATTRS : parseAttrs(inner.slice(space)));
        if (selfClosing) h.close(name);
      }
      i = gt + 1;
    }
    this.pending = i < n ? s.slice(i) : '';
    if (this.pending.length > MAX_PENDING) throw new Corrupt('a tag or text longer than any .xlsx holds');
  }

  /** The document's end: text left over is reported; an unfinished tag is a fault. */
  end(): void {
    if (this.pending.length === 0) return;
    if (this.pending.includes('<')) throw new Corrupt('the XML ends inside a tag');
    this.handler.text(unescapeXml(this.pending));
    this.pending = '';
  }
}
