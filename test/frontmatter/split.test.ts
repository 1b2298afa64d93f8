import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineBreak } from '../../src/frontmatter/fence.js';
import { splitFrontmatter } from '../../src/frontmatter/split.js';

describe('splitFrontmatter', () => {
  it('splits fences, frontmatter text and body', () => {
    const result = splitFrontmatter('---\nname: a\n---\n# Title\nbody\n');
    expect(result).toEqual({
      hasFrontmatter: true,
      closed: true,
      yaml: 'name: a\n',
      yamlLine: 2,
      body: '# Title\nbody\n',
      bodyLine: 4,
    });
  });

  it('treats text without an opening fence as all body', () => {
    const result = splitFrontmatter('# Title\n---\nname: a\n---\n');
    expect(result.hasFrontmatter).toBe(false);
    expect(result.body).toBe('# Title\n---\nname: a\n---\n');
    expect(result.bodyLine).toBe(1);
    expect(result.yaml).toBe('');
  });

  it('requires the fence on the first line, allowing trailing blanks only', () => {
    expect(splitFrontmatter('\n---\nname: a\n---\n').hasFrontmatter).toBe(false);
    expect(splitFrontmatter('--- x\nname: a\n---\n').hasFrontmatter).toBe(false);
    expect(splitFrontmatter('----\nname: a\n---\n').hasFrontmatter).toBe(false);
    expect(splitFrontmatter('--- \t\nname: a\n---  \nbody').yaml).toBe('name: a\n');
  });

  it('strips a UTF-8 BOM', () => {
    const result = splitFrontmatter('\uFEFF---\nname: a\n---\nbody');
    expect(result.yaml).toBe('name: a\n');
    expect(result.body).toBe('body');
    expect(splitFrontmatter('\uFEFFhello').body).toBe('hello');
  });

  it('normalises CRLF, CR and mixed line endings in the frontmatter and keeps the body verbatim', () => {
    const crlf = splitFrontmatter('---\r\nname: a\r\nx: 1\r\n---\r\nbody\r\nmore');
    expect(crlf.yaml).toBe('name: a\nx: 1\n');
    expect(crlf.body).toBe('body\r\nmore');
    expect(crlf.bodyLine).toBe(5);
    const cr = splitFrontmatter('---\rname: a\rx: 1\r---\rbody');
    expect(cr.yaml).toBe('name: a\nx: 1\n');
    expect(cr.body).toBe('body');
    const mixed = splitFrontmatter('---\nname: a\r\nx: 1\ry: 2\n---\nbody');
    expect(mixed.yaml).toBe('name: a\nx: 1\ny: 2\n');
    expect(mixed.bodyLine).toBe(6);
  });

  it('closes on "..." as well as "---"', () => {
    const result = splitFrontmatter('---\nname: a\n...  \nbody');
    expect(result.closed).toBe(true);
    expect(result.body).toBe('body');
    expect(splitFrontmatter('---\nname: a\n.... \nb: 1\n---\n').yaml).toBe('name: a\n.... \nb: 1\n');
  });

  it('reports an opening fence that is never closed', () => {
    const result = splitFrontmatter('---\nname: a\ndescription: b\n');
    expect(result.hasFrontmatter).toBe(true);
    expect(result.closed).toBe(false);
    expect(splitFrontmatter('---').closed).toBe(false);
    expect(splitFrontmatter('---\n').closed).toBe(false);
  });

  it('handles empty frontmatter and a closing fence at the end of the text', () => {
    expect(splitFrontmatter('---\n---')).toMatchObject({ closed: true, yaml: '', body: '', bodyLine: 3 });
    expect(splitFrontmatter('---\nname: a\n---')).toMatchObject({ closed: true, yaml: 'name: a\n', body: '' });
  });
});

// Reference forms of what split.ts and fence.ts did before they used the engine's own
// searches (a loop over every unit; the frontmatter as its lines joined): the fast forms must
// give the same results on any mix of LF, CR and CRLF.
function lineBreakByLoop(src: string | Uint8Array, start: number, length: number): number {
  for (let i = start; i < length; i++) {
    const c = typeof src === 'string' ? src.charCodeAt(i) : (src[i] ?? -1);
    if (c === 10 || c === 13) return i;
  }
  return -1;
}

function yamlByLines(text: string): string {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const close = lines.findIndex((line, i) => i > 0 && /^(?:---|\.\.\.)[ \t]*$/.test(line));
  const inner = close === -1 ? lines.slice(1) : lines.slice(1, close);
  // An unclosed frontmatter that ends with a line break has no last, empty line.
  if (close === -1 && /(?:\r\n|\r|\n)$/.test(text)) inner.pop();
  return inner.length === 0 ? '' : `${inner.join('\n')}\n`;
}

const lineText = fc.constantFrom('name: a', 'x: 1', '', '  - b', '---', '...', '--- ', 'd: é ü', '\u2028', 'k: "q\\r"');
const lineBreakText = fc.constantFrom('\n', '\r', '\r\n', '\n\n', '\r\r');
const fencedText = fc
  .tuple(fc.boolean(), fc.array(fc.tuple(lineText, lineBreakText), { maxLength: 12 }), fc.boolean())
  .map(
    ([bom, lines, close]) => `${bom ? '\uFEFF' : ''}---\n${lines.map(([text, br]) => text + br).join('')}${close ? '---\nbody\r\n' : ''}`,
  );

describe('splitFrontmatter and lineBreak use string search, with the same results', () => {
  it('lineBreak finds what a loop over every unit finds, in text and in bytes, within `length`', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }).map((s) => s.replace(/[ab]/g, (c) => (c === 'a' ? '\n' : '\r'))),
        fc.nat(45),
        fc.nat(45),
        (text, start, length) => {
          expect(lineBreak(text, start, length)).toBe(lineBreakByLoop(text, start, length));
          const bytes = new TextEncoder().encode(text);
          expect(lineBreak(bytes, start, Math.min(length, bytes.length))).toBe(
            lineBreakByLoop(bytes, start, Math.min(length, bytes.length)),
          );
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('ignores line breaks past `length` (bytes read into a larger buffer)', () => {
    const bytes = new TextEncoder().encode('abc\ndef');
    expect(lineBreak(bytes, 0, 3)).toBe(-1);
    expect(lineBreak(bytes, 0, 4)).toBe(3);
    expect(lineBreak('ab\rc\n', 0, 2)).toBe(-1);
  });

  it('gives the frontmatter its lines joined with LF would give, closed or not', () => {
    fc.assert(
      fc.property(fencedText, (text) => {
        expect(splitFrontmatter(text).yaml).toBe(yamlByLines(text));
      }),
      { numRuns: 2000 },
    );
  });
});
