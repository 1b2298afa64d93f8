import { describe, expect, it } from 'vitest';
import { chompBlock, scanBlockHeader, scanBlockScalar } from '../../src/frontmatter/block-scalar.js';
import { Lexer } from '../../src/frontmatter/lexer.js';
import type { Token } from '../../src/frontmatter/lexer.js';
import { LineIndex } from '../../src/frontmatter/line-index.js';
import { continuePlain, recoverLine, scanPlainLine } from '../../src/frontmatter/plain.js';
import { scanDoubleQuoted, scanSingleQuoted } from '../../src/frontmatter/quoted.js';

function tokens(src: string): Token[] {
  const lexer = new Lexer(src);
  const out: Token[] = [];
  for (let i = 0; i < 1000; i++) {
    const token = lexer.next();
    out.push(token);
    if (token.kind === 'eof' || token.kind === 'error') break;
  }
  return out;
}

function kinds(src: string): string[] {
  return tokens(src).map((t) => (t.kind === 'plain' || t.kind === 'single' || t.kind === 'double' ? `${t.kind}:${t.value}` : t.kind));
}

describe('Lexer on its own', () => {
  it('reads keys, values and indicators with offsets, columns and line starts', () => {
    const src = 'name: a\nlist:\n  - b # note\n';
    const list = tokens(src);
    expect(list.map((t) => (t.kind === 'error' ? t : [t.kind, t.start, t.end, t.col, t.lineStart]))).toEqual([
      ['plain', 0, 4, 0, true],
      ['colon', 4, 5, 4, false],
      ['plain', 6, 7, 6, false],
      ['plain', 8, 12, 0, true],
      ['colon', 12, 13, 4, false],
      ['seq', 16, 17, 2, true],
      ['plain', 18, 19, 4, false],
      ['eof', src.length, src.length, 0, true],
    ]);
  });

  it('ends plain scalars at ": " and " #", not at ":" or "#" inside words', () => {
    expect(kinds('a: http://x.y/#top C#')).toEqual(['plain:a', 'colon', 'plain:http://x.y/#top C#', 'eof']);
    expect(kinds('a: b #c')).toEqual(['plain:a', 'colon', 'plain:b', 'eof']);
    expect(kinds('a: b: c')).toEqual(['plain:a', 'colon', 'plain:b', 'colon', 'plain:c', 'eof']);
  });

  it('reads flow indicators only inside flow collections, and `:` after a quoted key in flow', () => {
    expect(kinds('[a, {b: c}]')).toEqual([
      'seqStart',
      'plain:a',
      'comma',
      'mapStart',
      'plain:b',
      'colon',
      'plain:c',
      'mapEnd',
      'seqEnd',
      'eof',
    ]);
    expect(kinds('a, b]')).toEqual(['plain:a, b]', 'eof']);
    expect(kinds('{"a":1}')).toEqual(['mapStart', 'double:a', 'colon', 'plain:1', 'mapEnd', 'eof']);
    expect(kinds('a:1')).toEqual(['plain:a:1', 'eof']);
  });

  it('decodes quoted scalars; a token after a multi-line scalar has the column of its own line', () => {
    const list = tokens('"a\\tb\n  c" x\nk: v');
    expect(list[0]).toMatchObject({ kind: 'double', value: 'a\tb c', start: 0, col: 0, contIndent: 2 });
    // `x` sits on the second line, at column 5.
    expect(list[1]).toMatchObject({ kind: 'plain', value: 'x', col: 5, lineStart: false });
    expect(list[2]).toMatchObject({ kind: 'plain', value: 'k', col: 0, lineStart: true });
    expect(tokens("'it''s'")[0]).toMatchObject({ kind: 'single', value: "it's", contIndent: Infinity });
  });

  it('returns error tokens at the offset of the problem', () => {
    expect(tokens('a: "open')[2]).toEqual({ kind: 'error', start: 3, code: 'YAML_UNCLOSED_QUOTE', message: 'unclosed double quote' });
    expect(tokens("a: 'open\n")[2]).toMatchObject({ kind: 'error', code: 'YAML_UNCLOSED_QUOTE', start: 3 });
    expect(tokens('a: "x\\q"')[2]).toMatchObject({ kind: 'error', code: 'YAML_BAD_ESCAPE', start: 5 });
    expect(tokens('a: "\\u12"')[2]).toMatchObject({ kind: 'error', code: 'YAML_BAD_ESCAPE' });
    expect(tokens('a: |x')[2]).toMatchObject({ kind: 'error', code: 'YAML_SYNTAX', start: 4 });
  });

  it('flags tab indentation in block context only', () => {
    expect(tokens('a:\n\tb: 1')[2]).toMatchObject({ kind: 'error', code: 'YAML_TAB_INDENT', start: 3 });
    expect(kinds('[a,\n\tb]')).toEqual(['seqStart', 'plain:a', 'comma', 'plain:b', 'seqEnd', 'eof']);
  });

  it('reads a block scalar header, and goes on where the composer moves it', () => {
    const src = 'a: |-2 # c\n    x\n   y\nb: 1\n';
    const lexer = new Lexer(src);
    lexer.next();
    lexer.next();
    const header = lexer.next();
    expect(header).toMatchObject({ kind: 'block', value: '|-2', header: { folded: false, chomp: -1, indentIndicator: 2 }, lineEnd: 10 });
    const next = src.indexOf('b:');
    lexer.moveTo(next, next);
    expect(lexer.next()).toMatchObject({ kind: 'plain', value: 'b', start: next, col: 0, lineStart: true });
  });

  it('tells whether a `:` follows on the line, without moving', () => {
    const lexer = new Lexer('key : v\nother\n');
    lexer.next();
    expect(lexer.atValueIndicator()).toBe(true);
    expect(lexer.next()).toMatchObject({ kind: 'colon' });
    lexer.next();
    expect(lexer.atValueIndicator()).toBe(false);
  });

  it('leaves flow context when the composer reads a failed flow collection as text', () => {
    const lexer = new Lexer('a: [x\nb, c]');
    expect(kinds('a: [x\nb, c]')).toContain('comma');
    lexer.next();
    lexer.next();
    lexer.next(); // [
    expect(lexer.inFlow).toBe(true);
    lexer.moveTo(5, 0, true);
    expect(lexer.inFlow).toBe(false);
    // Outside flow context `b, c]` is one plain scalar.
    expect(lexer.next()).toMatchObject({ kind: 'plain', value: 'b, c]', col: 0, lineStart: true });
  });

  it('reports document markers, anchors, aliases, tags and reserved characters as their own tokens', () => {
    expect(kinds('...\n')).toEqual(['docMarker', 'eof']);
    expect(kinds('a: &x 1')).toContain('anchor');
    expect(kinds('a: *x')).toContain('alias');
    expect(kinds('a: !t 1')).toContain('tag');
    expect(kinds('a: @b')).toContain('reserved');
    expect(kinds('%YAML 1.2')).toEqual(['directive', 'plain:YAML 1.2', 'eof']);
  });
});

describe('scanners', () => {
  it('plain: one line, then continuation lines deeper than the parent, folded', () => {
    const src = 'a: one\n  two\n\n  three\nb: 1';
    expect(scanPlainLine(src, 3, false)).toBe(6);
    const folded = continuePlain(src, 'one', 6, 0, false);
    expect(folded).toEqual({ value: 'one two\nthree', end: src.indexOf('three') + 5, lineStart: src.indexOf('  three') });
    // Nothing deeper follows: no continuation.
    expect(continuePlain('a: one\nb: 2', 'one', 6, 0, false)).toBeUndefined();
    // A comment ends a plain scalar.
    expect(continuePlain('a: one # c\n  two', 'one', 6, 0, false)).toBeUndefined();
  });

  it('plain recovery: the raw rest of the line, minus a comment, and deeper lines', () => {
    const src = 'a: x: y # c\n  more\nb: 1';
    expect(recoverLine(src, 3, 0, 0)).toEqual({ value: 'x: y more', end: src.indexOf('more') + 4, lineStart: src.indexOf('  more') });
    expect(recoverLine('a: x: y\nb: 1', 3, 0, 0)).toEqual({ value: 'x: y', end: 7, lineStart: 0 });
  });

  it('quoted: escapes, folding, least continuation indent and the last line reached', () => {
    expect(scanDoubleQuoted('"a\\x41\\u00e9\\\n   b"', 0)).toEqual({ ok: true, value: 'aAéb', end: 19, contIndent: 3, lineStart: 14 });
    expect(scanSingleQuoted("'a\n\n b'", 0)).toEqual({ ok: true, value: 'a\nb', end: 7, contIndent: 1, lineStart: 4 });
    expect(scanDoubleQuoted('"\\U00110000"', 0)).toMatchObject({ ok: false, code: 'YAML_BAD_ESCAPE', at: 1 });
  });

  it('block scalars: content deeper than the parent, then chomping', () => {
    const src = 'a: >\n  one\n  two\n\n  three\nb: 1';
    const header = scanBlockHeader(src, 3);
    expect(header).toEqual({ ok: true, header: { folded: true, chomp: 0, indentIndicator: 0 }, end: 4, lineEnd: 4 });
    if (!header.ok) return;
    expect(scanBlockScalar(src, header.lineEnd, header.header, 0)).toEqual({
      value: 'one two\nthree\n',
      badIndent: false,
      end: src.indexOf('b:'),
    });
    expect(chompBlock(['x', '', ''], false, 1)).toBe('x\n\n\n');
    expect(chompBlock(['x', ''], false, -1)).toBe('x');
  });
});

describe('LineIndex', () => {
  it('turns offsets into 1-based lines (from the first line given) and columns', () => {
    const lines = new LineIndex('ab\n\ncd\n', 2);
    expect(lines.position(0)).toEqual({ line: 2, column: 1 });
    expect(lines.position(2)).toEqual({ line: 2, column: 3 });
    expect(lines.position(3)).toEqual({ line: 3, column: 1 });
    expect(lines.position(5)).toEqual({ line: 4, column: 2 });
    expect(lines.position(7)).toEqual({ line: 5, column: 1 });
    expect(lines.lineStart(5)).toBe(4);
  });
});
