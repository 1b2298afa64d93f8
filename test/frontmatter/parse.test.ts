import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as yamlParse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../../src/frontmatter/parse.js';
import type { ParsedFrontmatter } from '../../src/frontmatter/parse.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/frontmatter/', import.meta.url));

function fixture(name: string): ParsedFrontmatter {
  return parseFrontmatter(readFileSync(FIXTURES + name, 'utf8'), { file: name });
}

/** Frontmatter `yaml` text wrapped in fences, parsed by us and by the `yaml` oracle. */
function both(yamlText: string): { ours: ParsedFrontmatter; oracle: unknown } {
  const ours = parseFrontmatter(`---\n${yamlText}\n---\nbody`);
  return { ours, oracle: yamlParse(ours.frontmatter ?? '') ?? {} };
}

function expectLikeYaml(yamlText: string): Record<string, unknown> {
  const { ours, oracle } = both(yamlText);
  expect(ours.diagnostics).toEqual([]);
  expect(ours.metadata).toEqual(oracle);
  return ours.metadata;
}

function codes(result: ParsedFrontmatter): string[] {
  return result.diagnostics.map((d) => `${d.severity}:${d.code}@${d.line}:${d.column}`);
}

const validFixtures = readdirSync(FIXTURES).filter((f) => !/^(error|recovered|unclosed)/.test(f));

describe('fixtures: same values as the yaml package', () => {
  it.each(validFixtures)('%s', (name) => {
    const ours = fixture(name);
    expect(ours.diagnostics).toEqual([]);
    expect(ours.metadata).toEqual(yamlParse(ours.frontmatter ?? '') ?? {});
  });
});

describe('fixtures: explicit values', () => {
  it('basic', () => {
    const result = fixture('basic.md');
    expect(result.metadata).toEqual({
      name: 'pdf-tools',
      description: 'Fill, merge and split PDF files. Use when the user mentions PDFs.',
      license: 'Apache-2.0',
      version: 2,
      enabled: true,
      retries: 3,
      ratio: 0.25,
      owner: null,
      notes: null,
    });
    expect(result.body).toBe('\n# PDF tools\n\nBody text.\n');
    expect(result.bodyLine).toBe(12);
    expect(result.hasFrontmatter).toBe(true);
    expect(result.fields.name).toEqual({ line: 2, column: 1, plain: 'pdf-tools' });
    expect(result.fields.version).toEqual({ line: 5, column: 1, plain: '2.0' });
    expect(result.fields.notes).toEqual({ line: 10, column: 1 });
  });

  it('block scalars', () => {
    expect(fixture('block-scalars.md').metadata).toMatchObject({
      literal: 'first line\n  indented line\n\nafter a blank line\n',
      folded: 'folded lines join with spaces\na blank line is a newline\n  more-indented lines\n  stay apart\nback to folding\n',
      strip: 'no trailing newline',
      keep: 'trailing blank lines kept\n\n\n',
      'folded-strip': 'one two',
      explicit: '  two spaces kept\n one space kept\n',
      'folded-explicit': ' leading space\n joined',
      description: 'Writes release notes from commit history.\n',
      last: 'done',
    });
    expect(fixture('block-scalars.md').fields.literal).toEqual({ line: 3, column: 1 });
  });

  it('quoted scalars and escapes', () => {
    expect(fixture('quoted.md').metadata).toEqual({
      name: 'quoted',
      description: 'Says "hi", uses a backslash \\ and a slash /; tab\there',
      escapes: '\0\x07\b\x1b\f\r\v \x85\xa0\u2028\u2029|A\u00e9\u{1F600}',
      newline: 'line one\nline two',
      'folded-double': 'a double-quoted value spread over\nthree lines',
      'escaped-break': 'no space between',
      single: "it's single-quoted: # not a comment",
      'folded-single': 'single quotes also fold',
      'quoted key': 'value',
      'json key': 1,
      unicode: 'It\u2019s here',
    });
  });

  it('plain scalars over several lines', () => {
    expect(fixture('plain-multiline.md').metadata).toEqual({
      name: 'plain-multiline',
      description: 'A plain scalar that goes on over more-indented lines, folded with spaces\nand a blank line that becomes a newline.',
      'next-line': 'value on the line after the key',
      url: 'https://example.com/a#fragment',
      'hash-in-word': 'C# and F#are content',
      'colon-in-word': 'key:value stays text',
      comment: 'value',
      dash: '-not-a-list',
    });
    expect(fixture('plain-multiline.md').fields.description?.plain).toContain('folded with spaces\nand a blank');
  });

  it('nested maps and sequences', () => {
    expect(fixture('nested.md').metadata).toEqual({
      name: 'nested',
      metadata: {
        author: 'Jane Doe',
        version: '1.0.0',
        openclaw: { requires: { env: ['API_KEY', 'OTHER_KEY'], bins: ['node', 'npx'] }, primary: 'API_KEY' },
      },
      wide: { four: 'spaces', deeper: { twelve: 'spaces' } },
      'allowed-tools': ['Read', 'Write', 'Bash(git:*)'],
      steps: [{ name: 'first', run: 'echo one' }, { name: 'second', with: { flag: true } }, null, ['nested', 'list']],
      last: 1,
    });
  });

  it('flow collections', () => {
    const { metadata } = fixture('flow.md');
    expect(metadata).toMatchObject({
      tags: ['pdf', 'documents', 'quoted, with comma', 'single'],
      'empty-list': [],
      'empty-map': {},
      trailing: ['a', 'b'],
      map: { a: 1, b: 'two', c: null, bare: null },
      json: { openclaw: { requires: { env: ['API_KEY'] }, primaryEnv: 'API_KEY' } },
      spread: ['one', 'two', 'three'],
      'spread-map': { x: 1, y: [1, 2] },
      'pair-in-list': [{ a: 1 }, 'b'],
      'url-in-flow': ['http://example.com', 'b'],
    });
    expect(metadata.numbers).toEqual([1, -2, 31, 15, 1000, 0.5, Infinity, -Infinity, NaN]);
  });

  it('comments, CRLF, BOM, "..." and empty frontmatter', () => {
    expect(fixture('comments.md').metadata).toEqual({ name: 'comments', description: 'Keeps#inside words#like this', list: ['a', 'b'] });
    expect(fixture('crlf.md').metadata).toEqual({
      name: 'crlf',
      description: 'Windows line endings',
      list: ['a', 'b'],
      block: 'line one\nline two\n',
    });
    expect(fixture('crlf.md').body).toBe('Body line\r\n');
    expect(fixture('bom.md').metadata).toEqual({ name: 'bom', description: 'Starts with a UTF-8 byte order mark' });
    expect(fixture('document-end.md')).toMatchObject({ metadata: { name: 'document-end' }, body: 'Body after dots\n', bodyLine: 5 });
    expect(fixture('empty.md')).toMatchObject({ metadata: {}, hasFrontmatter: true, diagnostics: [], bodyLine: 3 });
    expect(fixture('no-frontmatter.md')).toMatchObject({ metadata: {}, hasFrontmatter: false, diagnostics: [], bodyLine: 1 });
  });

  it('core schema scalars and safe keys', () => {
    const { metadata } = fixture('scalars.md');
    expect(metadata).toMatchObject({
      'true-values': [true, true, true],
      'false-values': [false, false, false],
      nulls: [null, null, null, null],
      'not-booleans': ['yes', 'no', 'on', 'off', 'tRUE'],
      floats: [1.5, -2, 1, 6.02e23, 0.5],
      'not-numbers': ['1_000', '0b101', '1.2.3', '0x', '1e'],
      version: 2,
      date: '2024-01-15',
      constructor: 'also fine',
      '1': 'numeric key',
      '2': 'int key',
    });
    expect(Object.is((metadata.ints as number[])[1], -0)).toBe(true);
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(metadata, '__proto__')?.value).toBe('own property');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('shapes', () => {
  it('block scalar indicators in every order, blank lines and end of input', () => {
    expectLikeYaml('a: |+2\n   x\n\nb: >-\n  y\n   z\nc: |\n  x');
    expectLikeYaml('a: |2-\n   x\n\n\nb: >+\n\n  y\n\n');
    expectLikeYaml('a: >\n\n  x\n   y\n\n  z\n  w\n');
    expectLikeYaml('a: |\n  x\n   \n  y\n');
    expectLikeYaml('a: |+\n\n\nb: 1');
    expectLikeYaml('a: |\nb: 1');
    expectLikeYaml('a: >-  # comment\n  x\n');
    expectLikeYaml('- a: |\n    x\n  b: 2\n'.replace(/^/, 'k:\n').replace(/\n/g, '\n  ').trimEnd());
    expectLikeYaml('k:\n  - |2\n     x\n  - >\n    y\n');
  });

  it('quoted scalars over several lines', () => {
    expectLikeYaml('a: "x\n  y\n\n  z  "\nb: \'p\n\n\n  q\'');
    expectLikeYaml('a: "a\\\n   b"\nc: "a\\\n\n  b"\nd: "a \\t\n  b"');
    expectLikeYaml('a: "\\"\\\\\\/\\n\\t\\0\\a\\b\\e\\f\\r\\v\\ \\N\\_\\L\\P\\x7e\\u2019\\U0001F600"');
  });

  it('values on the next line and sequences at their key indentation', () => {
    expectLikeYaml('a:\n  b\nc:\n- d\n- e\nf:\n    - g\n    -   h\n');
    expectLikeYaml('a:\n  - b: 1\n    c: 2\n  - d\n');
    expectLikeYaml('- a\n  b\n- c'.replace(/^/, 'x:\n').replace(/\n/g, '\n '));
    expectLikeYaml('a:\n- b\n  - c');
  });

  it('keys: numbers, booleans, null, empty and quoted', () => {
    expectLikeYaml("1: a\n1.5e0: b\ntrue: c\n~: d\n'x y': f\n0x10: g");
    expectLikeYaml(': empty key\nz: 1');
    expectLikeYaml('a: {: b}\nc: [: d]');
  });

  it('flow collections spread over lines', () => {
    expectLikeYaml('a: [\n  b,\n  c\n]\nd: {x: [1,\n  2], y: "q\n  r"}\ne: [f\n  g]');
    expectLikeYaml('[a,\nb]'.replace(/^/, 'k: ').replace(/\nb/, '\n  b'));
    expectLikeYaml('a: {"k":1,"j":[true,false,null]}');
  });

  it('__proto__ in flow and block maps stays an own property', () => {
    const metadata = expectLikeYaml('__proto__: {polluted: 1}\nb: {__proto__: x}');
    expect(Object.hasOwn(metadata, '__proto__')).toBe(true);
    expect((metadata as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.hasOwn(metadata.b as object, '__proto__')).toBe(true);
  });

  it('fields: positions of top-level keys and plain source text', () => {
    const result = parseFrontmatter('---\nname: x\n  # not a key\nversion: 1.10\nquoted: "2.0"\nlist: [1]\n"k": 0x1F\n---\n');
    expect(result.fields).toEqual({
      name: { line: 2, column: 1, plain: 'x' },
      version: { line: 4, column: 1, plain: '1.10' },
      quoted: { line: 5, column: 1 },
      list: { line: 6, column: 1 },
      k: { line: 7, column: 1, plain: '0x1F' },
    });
    expect(result.metadata.version).toBe(1.1);
  });
});

describe('recovery where yaml throws', () => {
  it('reads an unquoted ": " in a value as text, with a warning', () => {
    const result = fixture('recovered-colon.md');
    expect(() => yamlParse(result.frontmatter ?? '')).toThrow();
    expect(result.metadata).toEqual({
      name: 'discord-automation',
      description: 'Automate Discord tasks via Rube MCP (Composio): messages, channels, roles',
      license: 'MIT',
    });
    expect(codes(result)).toEqual(['warning:YAML_RECOVERED@3:14']);
    expect(result.diagnostics[0]?.file).toBe('recovered-colon.md');
    expect(result.diagnostics[0]?.message).toContain('"description: Automate Discord tasks via Rube MCP (Composio): messages, chann');
    expect(result.fields.description?.plain).toBe(result.metadata.description);
  });

  it('reads other values yaml rejects after a key as text', () => {
    const result = fixture('recovered-other.md');
    expect(result.metadata).toEqual({
      name: 'recovered-other',
      description: '[WIP] Drafts documents: a flow sequence followed by text',
      summary: '"Quoted" then more text',
      mention: '@team reviews this',
      code: '`npm test` runs the tests',
      emphasis: '*important* read this first',
    });
    expect(codes(result)).toEqual([
      'warning:YAML_RECOVERED@3:14',
      'warning:YAML_RECOVERED@4:10',
      'warning:YAML_RECOVERED@5:10',
      'warning:YAML_RECOVERED@6:7',
      'warning:YAML_RECOVERED@7:11',
    ]);
  });

  it('continues a recovered value on more-indented lines', () => {
    const result = parseFrontmatter('---\nd: Use it: when\n  asked: twice\n\n  ok\ne: 1\n---\n');
    expect(result.metadata).toEqual({ d: 'Use it: when asked: twice\nok', e: 1 });
    expect(codes(result)).toEqual(['warning:YAML_RECOVERED@2:4']);
  });

  it('reads a flow collection cut off by the next key as the text of its line', () => {
    // A published description (yaml rejects it; we used to, too, and lost the skill).
    const text =
      '---\nname: smart-fix\ndescription: [Extended thinking: This workflow fixes bugs, in four phases\nlicense: MIT\n---\nbody\n';
    const result = parseFrontmatter(text);
    expect(() => yamlParse(result.frontmatter ?? '')).toThrow();
    expect(result.metadata).toEqual({
      name: 'smart-fix',
      description: '[Extended thinking: This workflow fixes bugs, in four phases',
      license: 'MIT',
    });
    expect(codes(result)).toEqual(['warning:YAML_RECOVERED@3:14']);
    expect(result.diagnostics[0]?.message).toMatch(/^flow sequence "\[" not closed before the next key; read as plain text: /);
    expect(result.fields.description?.plain).toBe(result.metadata.description);
  });

  it('recovers cut-off flow collections of both kinds, nested, over lines, and at the end of the frontmatter', () => {
    const read = (yamlText: string): [unknown, string[]] => {
      const result = parseFrontmatter(`---\n${yamlText}\n---\n`);
      return [result.metadata, codes(result)];
    };
    expect(read('d: {Note: a, b\ne: 1')).toEqual([{ d: '{Note: a, b', e: 1 }, ['warning:YAML_RECOVERED@2:4']]);
    expect(read('d: [a, [b, c]\ne: 1')).toEqual([{ d: '[a, [b, c]', e: 1 }, ['warning:YAML_RECOVERED@2:4']]);
    expect(read('d: [a,\n  b\ne: 1')).toEqual([{ d: '[a, b', e: 1 }, ['warning:YAML_RECOVERED@2:4']]);
    expect(read('m:\n  d: [a\n  e: 1\nf: 2')).toEqual([{ m: { d: '[a', e: 1 }, f: 2 }, ['warning:YAML_RECOVERED@3:6']]);
    expect(read('d: [a, b')).toEqual([{ d: '[a, b' }, ['warning:YAML_RECOVERED@2:4']]);
    expect(parseFrontmatter('---\nd: {a\n---\n').diagnostics[0]?.message).toMatch(
      /^flow mapping "\{" not closed before the end of the frontmatter/,
    );
  });

  it("still refuses a cut-off flow collection that is not a value on its key's line, or not cut off by a key", () => {
    expect(codes(parseFrontmatter('---\nd:\n  [a, b\ne: 1\n---\n'))).toEqual(['error:YAML_BAD_INDENT@4:1']);
    expect(codes(parseFrontmatter('---\nd: [a,\nb]\n---\n'))).toEqual(['error:YAML_BAD_INDENT@3:1']);
    // Another error inside the collection is reported as it is.
    expect(codes(parseFrontmatter('---\nd: [a, "b\ne: 1\n---\n'))).toEqual(['error:YAML_UNCLOSED_QUOTE@2:8']);
  });

  it('recovers inside nested maps and sequence items', () => {
    const result = parseFrontmatter('---\nm:\n  k: a: b\nl:\n  - x: y: z\n---\n');
    expect(result.metadata).toEqual({ m: { k: 'a: b' }, l: [{ x: 'y: z' }] });
    expect(codes(result)).toEqual(['warning:YAML_RECOVERED@3:6', 'warning:YAML_RECOVERED@5:8']);
  });
});

describe('errors', () => {
  it('unclosed frontmatter', () => {
    const result = fixture('unclosed.md');
    expect(result).toMatchObject({ metadata: {}, hasFrontmatter: true, body: '' });
    expect(codes(result)).toEqual(['error:FRONTMATTER_UNCLOSED@1:1']);
  });

  it('names each refused construct, in block and flow context alike', () => {
    const message = (yaml: string) => parseFrontmatter(`---\n${yaml}\n---\n`).diagnostics.map((d) => `${d.code} ${d.message}`);
    expect(message('k: [*x]')).toEqual(['YAML_UNSUPPORTED aliases are not supported: "k: [*x]"']);
    expect(message('k: {a: &x 1}')).toEqual(['YAML_UNSUPPORTED anchors are not supported: "k: {a: &x 1}"']);
    expect(message('k: !!str v')).toEqual(['YAML_UNSUPPORTED tags are not supported: "k: !!str v"']);
    expect(message('a: 1\n? k')).toEqual(['YAML_UNSUPPORTED explicit "? " keys are not supported: "? k"']);
    // In flow context too: `[ ? k ]` is a sequence holding the mapping {k: null} (yaml.stringify writes one for the string "?\nk").
    expect(message('a: [ ? k ]')).toEqual(['YAML_UNSUPPORTED explicit "? " keys are not supported: "a: [ ? k ]"']);
    expect(message('a: [\n  ?\n\n    k\n  ]')).toEqual(['YAML_UNSUPPORTED explicit "? " keys are not supported: "?"']);
  });

  it('unclosed quote, with the line quoted and the keys read before it', () => {
    const result = fixture('error-quote.md');
    expect(result.metadata).toEqual({ name: 'error-quote' });
    expect(codes(result)).toEqual(['error:YAML_UNCLOSED_QUOTE@3:14']);
    expect(result.diagnostics[0]?.message).toBe('unclosed double quote: "description: \\"Helps with things but the quote is never closed"');
  });

  it('duplicate keys', () => {
    const result = fixture('error-duplicate.md');
    expect(result.metadata).toEqual({ name: 'first', description: 'The name key appears twice' });
    expect(codes(result)).toEqual(['error:YAML_DUPLICATE_KEY@4:1']);
    expect(codes(parseFrontmatter('---\na: {x: 1, x: 2}\n---\n'))).toEqual(['error:YAML_DUPLICATE_KEY@2:11']);
  });

  it('a root that is not a map', () => {
    expect(codes(fixture('error-not-map.md'))).toEqual(['error:FRONTMATTER_NOT_MAP@2:1']);
    expect(codes(parseFrontmatter('---\njust text\n---\n'))).toEqual(['error:FRONTMATTER_NOT_MAP@2:1']);
    expect(fixture('error-not-map.md').metadata).toEqual({});
  });

  it('bad indentation and tabs', () => {
    expect(codes(fixture('error-indent.md'))).toEqual(['error:YAML_BAD_INDENT@5:3']);
    // The nested map was complete when the bad line came: it is kept.
    expect(fixture('error-indent.md').metadata).toEqual({ name: 'bad-indent', metadata: { author: 'someone' } });
    expect(codes(fixture('error-tab.md'))).toEqual(['error:YAML_TAB_INDENT@4:1']);
  });

  it('long offending lines are cut in messages', () => {
    const result = parseFrontmatter(`---\nd: "${'x'.repeat(200)}\n---\n`);
    const message = result.diagnostics[0]?.message ?? '';
    expect(message).toMatch(/^unclosed double quote: "d: \\"x+\.\.\."$/);
    expect(message.length).toBeLessThan(110);
  });

  it.each([
    ['a:\n  [b, c', 'YAML_UNCLOSED_FLOW@3:3'],
    ['- {b: c', 'YAML_UNCLOSED_FLOW@2:3'],
    ['a: [b,\nc]', 'YAML_BAD_INDENT@3:1'],
    ['a: [b c}', 'YAML_SYNTAX@2:8'],
    ['a: [b,, c]', 'YAML_SYNTAX@2:7'],
    ['a: "\\q"', 'YAML_BAD_ESCAPE@2:5'],
    ["a: 'x", 'YAML_UNCLOSED_QUOTE@2:4'],
    ['a: &x 1', 'YAML_UNSUPPORTED@2:4'],
    ['a: !!str 1', 'YAML_UNSUPPORTED@2:4'],
    ['a: [*x]', 'YAML_UNSUPPORTED@2:5'],
    ['? a\n: b', 'YAML_UNSUPPORTED@2:1'],
    ['%YAML 1.2', 'YAML_UNSUPPORTED@2:1'],
    ['a: 1\n... x\nb: 2', 'YAML_UNSUPPORTED@3:1'],
    ['a: 1\n- b', 'YAML_SYNTAX@3:1'],
    ['a\nb: 1', 'YAML_SYNTAX@3:2'],
    ['a: b #c\n  d', 'YAML_BAD_INDENT@3:3'],
    ['a: |\n    x\n  y', 'YAML_BAD_INDENT@4:3'],
    ['a: |\n    \n  x', 'YAML_BAD_INDENT@2:4'],
    ['a: "x\ny"', 'YAML_BAD_INDENT@2:4'],
    ['a: [\nb]', 'YAML_BAD_INDENT@3:1'],
    ['a: |x', 'YAML_SYNTAX@2:5'],
    ['"a\n b": 1', 'YAML_SYNTAX@2:1'],
    ['[a]: b', 'YAML_UNSUPPORTED@2:1'],
    ['a: {[b]: c}', 'YAML_UNSUPPORTED@2:5'],
  ])('%j -> %s', (yamlText, expected) => {
    // Unsupported constructs are valid YAML that we refuse; everything else yaml rejects too.
    if (!expected.startsWith('YAML_UNSUPPORTED')) expect(() => yamlParse(yamlText)).toThrow();
    const result = parseFrontmatter(`---\n${yamlText}\n---\n`);
    const errors = result.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code}@${d.line}:${d.column}`);
    expect(errors).toEqual([expected]);
  });

  it('depth limit', () => {
    const deep = `a: ${'['.repeat(100)}${']'.repeat(100)}`;
    expect(codes(parseFrontmatter(`---\n${deep}\n---\n`))).toEqual(['error:YAML_TOO_DEEP@2:67']);
    expect(parseFrontmatter(`---\n${deep}\n---\n`, { maxDepth: 200 }).diagnostics).toEqual([]);
    const blocks = Array.from({ length: 10 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n');
    expect(codes(parseFrontmatter(`---\n${blocks} x\n---\n`, { maxDepth: 3 }))).toEqual(['error:YAML_TOO_DEEP@5:4']);
  });

  it('file name in diagnostics', () => {
    expect(parseFrontmatter('---\na: "\n---\n').diagnostics[0]?.file).toBe('<input>');
    expect(parseFrontmatter('---\na: "\n---\n', { file: 'x/SKILL.md' }).diagnostics[0]?.file).toBe('x/SKILL.md');
  });
});
