/** The piecewise XML scanner: the same events however the text is cut, entities decoded, bad XML refused. */
import { describe, expect, it } from 'vitest';
import { Corrupt } from './binary.ts';
import { XmlScanner } from './xml-scan.ts';

function events(pieces: readonly string[]): string[] {
  const out: string[] = [];
  const scanner = new XmlScanner({
    open: (name, attrs) => out.push(`<${name} ${JSON.stringify(attrs)}`),
    close: (name) => out.push(`</${name}`),
    text: (text) => {
      // A run of text may arrive in one event or, across a comment or CDATA, in several.
      if (out.length > 0 && out[out.length - 1].startsWith('"')) out[out.length - 1] += text;
      else out.push(`"${text}`);
    },
  });
  for (const p of pieces) scanner.write(p);
  scanner.end();
  return out;
}

const DOC =
  '<?xml version="1.0" encoding="UTF-8"?><x:sheet xmlns:x="urn:a"><!-- a > comment --><row r="1" spans=\'1:2\'>' +
  '<c r="A1" t="s" note="a>b"><v>12</v></c><c r="B1" t="inlineStr"><is><t xml:space="preserve"> a &amp; b &lt;&#233;&#x1F600;&gt; </t></is></c>' +
  '<c r="C1"/><v><![CDATA[<raw & text>]]></v></row></x:sheet>';

describe('XmlScanner', () => {
  it('reports tags by local name, attributes decoded, text with entities and CDATA', () => {
    expect(events([DOC])).toEqual([
      '<sheet {"x":"urn:a"}',
      '<row {"r":"1","spans":"1:2"}',
      '<c {"r":"A1","t":"s","note":"a>b"}',
      '<v {}',
      '"12',
      '</v',
      '</c',
      '<c {"r":"B1","t":"inlineStr"}',
      '<is {}',
      '<t {"space":"preserve"}',
      '" a & b <é😀> ',
      '</t',
      '</is',
      '</c',
      '<c {"r":"C1"}',
      '</c',
      '<v {}',
      '"<raw & text>',
      '</v',
      '</row',
      '</sheet',
    ]);
  });

  it('the same events for every cut of the text into pieces', () => {
    const whole = events([DOC]);
    for (const size of [1, 2, 3, 5, 8, 13]) {
      const pieces: string[] = [];
      for (let i = 0; i < DOC.length; i += size) pieces.push(DOC.slice(i, i + size));
      expect(events(pieces)).toEqual(whole);
    }
    for (let cut = 1; cut < DOC.length; cut++)
      expect(events([DOC.slice(0, cut), DOC.slice(cut)])).toEqual(whole);
  });

  it.each([
    ['a DOCTYPE', '<!DOCTYPE x [<!ENTITY a "b">]><x/>'],
    ['a tag never closed', '<x><y a="1"'],
    ['a "<" inside a tag', '<x<y>'],
    ['a bad character reference', '<x>&#x110000;</x>'],
  ])('%s is refused', (_what, xml) => {
    expect(() => events([xml])).toThrow(Corrupt);
  });
});
