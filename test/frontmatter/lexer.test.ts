import { describe, expect, it } from 'vitest';
import { Lexer } from '../../src/frontmatter/lexer.js';
import type { Token } from '../../src/frontmatter/lexer.js';

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

describe('Lexer', () => {
  it('reads keys, values and indicators with positions', () => {
    const list = tokens('name: a\nlist:\n  - b # note\n');
    expect(list.map((t) => [t.kind, t.line, t.col, t.lineStart])).toEqual([
      ['plain', 0, 0, true],
      ['colon', 0, 4, false],
      ['plain', 0, 6, false],
      ['plain', 1, 0, true],
      ['colon', 1, 4, false],
      ['seq', 2, 2, true],
      ['plain', 2, 4, false],
      ['eof', 3, 0, true],
    ]);
  });

  it('ends plain scalars at ": " and " #", not at ":" or "#" inside words', () => {
    expect(kinds('a: http://x.y/#top C#')).toEqual(['plain:a', 'colon', 'plain:http://x.y/#top C#', 'eof']);
    expect(kinds('a: b #c')).toEqual(['plain:a', 'colon', 'plain:b', 'eof']);
    expect(kinds('a: b: c')).toEqual(['plain:a', 'colon', 'plain:b', 'colon', 'plain:c', 'eof']);
  });

  it('reads flow indicators only inside flow collections', () => {
    expect(kinds('[a, {b: c}]')).toEqual(['seqStart', 'plain:a', 'comma', 'mapStart', 'plain:b', 'colon', 'plain:c', 'mapEnd', 'seqEnd', 'eof']);
    expect(kinds('a, b]')).toEqual(['plain:a, b]', 'eof']);
    expect(kinds('{"a":1}')).toEqual(['mapStart', 'double:a', 'colon', 'plain:1', 'mapEnd', 'eof']);
  });

  it('decodes quoted scalars and records their position at the opening quote', () => {
    const [token] = tokens('"a\\tb\n  c"');
    expect(token).toMatchObject({ kind: 'double', value: 'a\tb c', line: 0, col: 0, contIndent: 2 });
    expect(tokens("'it''s'")[0]).toMatchObject({ kind: 'single', value: "it's", contIndent: Infinity });
  });

  it('returns error tokens for unclosed quotes and bad escapes', () => {
    expect(tokens('a: "open')[2]).toMatchObject({ kind: 'error', code: 'YAML_UNCLOSED_QUOTE', line: 0, col: 3 });
    expect(tokens("a: 'open\n")[2]).toMatchObject({ kind: 'error', code: 'YAML_UNCLOSED_QUOTE' });
    expect(tokens('a: "x\\q"')[2]).toMatchObject({ kind: 'error', code: 'YAML_BAD_ESCAPE', col: 5 });
    expect(tokens('a: "\\u12"')[2]).toMatchObject({ kind: 'error', code: 'YAML_BAD_ESCAPE' });
  });

  it('flags tab indentation in block context', () => {
    expect(tokens('a:\n\tb: 1')[2]).toMatchObject({ kind: 'error', code: 'YAML_TAB_INDENT', line: 1, col: 0 });
  });

  it('reads block scalar headers and content for a given parent indentation', () => {
    const lexer = new Lexer('a: |-2\n    x\n   y\nb: 1\n');
    lexer.next();
    lexer.next();
    const header = lexer.next();
    expect(header).toMatchObject({ kind: 'block', chomp: -1, indentIndicator: 2 });
    expect(lexer.blockScalar(header, 0)).toEqual({ value: '  x\n y', badIndent: false });
    expect(lexer.next()).toMatchObject({ kind: 'plain', value: 'b', line: 3, col: 0, lineStart: true });
    expect(tokens('a: |x')[2]).toMatchObject({ kind: 'error', code: 'YAML_SYNTAX' });
  });

  it('continues plain scalars on lines indented more than the parent', () => {
    const lexer = new Lexer('a: one\n  two\n\n  three\nb: 1');
    lexer.next();
    lexer.next();
    const first = lexer.next();
    expect(lexer.continuePlain(first.value, 0)).toBe('one two\nthree');
    expect(lexer.next()).toMatchObject({ kind: 'plain', value: 'b', line: 4 });
  });

  it('recovers the raw rest of a line', () => {
    const lexer = new Lexer('a: x: y # c\n  more\nb: 1');
    lexer.next();
    lexer.next();
    const value = lexer.next();
    expect(lexer.recoverLine(value, 0)).toBe('x: y more');
    expect(lexer.next()).toMatchObject({ kind: 'plain', value: 'b', line: 2 });
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
