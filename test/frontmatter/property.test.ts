import fc from 'fast-check';
import { CST, Lexer, parse as yamlParse, stringify as yamlStringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../../src/frontmatter/parse.js';
import type { ParsedFrontmatter } from '../../src/frontmatter/parse.js';

/**
 * The parser's contract, as a list of what breaks it (empty when kept). Checked in plain code and asserted
 * once: thousands of runs made an expect per field a tenth of this file's time.
 */
function contractProblems(result: ParsedFrontmatter): string[] {
  const problems: string[] = [];
  const { metadata } = result;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) problems.push('metadata is not an object');
  if (typeof result.body !== 'string') problems.push('body is not a string');
  if (!(Number.isInteger(result.bodyLine) && result.bodyLine >= 1)) problems.push(`bodyLine ${result.bodyLine}`);
  if (typeof result.hasFrontmatter !== 'boolean') problems.push('hasFrontmatter is not a boolean');
  if (typeof result.fields !== 'object') problems.push('fields is not an object');
  for (const d of result.diagnostics) {
    const shaped =
      d.file === '<input>' &&
      d.line >= 1 &&
      d.column >= 1 &&
      ['error', 'warning'].includes(d.severity) &&
      d.message.length > 0 &&
      d.message.length < 400;
    if (!shaped) problems.push(`diagnostic ${JSON.stringify(d)}`);
  }
  return problems;
}

function expectContractShape(result: ParsedFrontmatter): void {
  expect(contractProblems(result)).toEqual([]);
}

function parseFenced(yamlText: string): ParsedFrontmatter {
  return parseFrontmatter(`---\n${yamlText}\n---\nbody`);
}

const punctuation = fc.constantFrom(
  ...'-:?,[]{}#&*!|>\'"%@`\\ \t\n\r\ufeff~.0123456789aZ'.split(''),
  ': ',
  '- ',
  ' #',
  '\n  ',
  '\n- ',
  '|-',
  '>+2',
  '\\u00',
  '\\x4',
  '...',
  '---',
  "''",
  '\r\n',
);
const yamlish = fc.array(punctuation, { maxLength: 60 }).map((parts) => parts.join(''));

describe('parseFrontmatter never throws', () => {
  it('on random text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        expectContractShape(parseFrontmatter(text));
        expectContractShape(parseFenced(text));
      }),
      { numRuns: 300 },
    );
  });

  it('on random mixes of YAML punctuation', () => {
    fc.assert(
      fc.property(yamlish, (text) => {
        expectContractShape(parseFenced(text));
      }),
      { numRuns: 1500 },
    );
  });

  it('on adversarial inputs: deep nesting, huge lines, unclosed quotes and flows', () => {
    const n = 10_000;
    const inputs = [
      `a: ${'['.repeat(n)}`,
      `a: ${'{'.repeat(n)}`,
      `a: ${'[{'.repeat(n / 2)}`,
      `${'['.repeat(n)}${']'.repeat(n)}`,
      `a:\n${Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i + 1)}- `).join('\n')}`,
      `${'- '.repeat(n)}x`,
      Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n'),
      `a: ${'x'.repeat(100_000)}`,
      `a: "${'x'.repeat(100_000)}`,
      `a: '${'x'.repeat(100_000)}`,
      `a: ${'1'.repeat(100_000)}`,
      `a: ${'1'.repeat(100_000)}e`,
      `a: ${': '.repeat(50_000)}`,
      `a: ${'\\'.repeat(100_000)}`,
      `a: "${'\\'.repeat(100_001)}"`,
      `a: |\n${'  x\n'.repeat(20_000)}`,
      `a: >\n${'  x\n\n   y\n'.repeat(5_000)}`,
      `${'"a\n'.repeat(5_000)}`,
      `a: b\n${'  "x\n'.repeat(5_000)}`,
      `${'#'.repeat(100_000)}`,
      `${'a: 1\n'.repeat(20_000)}`,
      `a: [${'x, '.repeat(30_000)}`,
    ];
    for (const input of inputs) {
      const result = parseFenced(input);
      expectContractShape(result);
    }
    expect(parseFenced(`a: ${'['.repeat(n)}`).diagnostics.map((d) => d.code)).toEqual(['YAML_TOO_DEEP']);
    expect(parseFrontmatter(`---\na: ${'['.repeat(n)}`).diagnostics.map((d) => d.code)).toEqual(['FRONTMATTER_UNCLOSED']);
    expect(parseFenced(`a: "${'x'.repeat(100_000)}`).diagnostics.map((d) => d.code)).toEqual(['YAML_UNCLOSED_QUOTE']);
    expect(parseFenced(`a: ${'x'.repeat(100_000)}`).metadata.a).toHaveLength(100_000);
  });

  it('with any maxDepth', () => {
    for (const maxDepth of [0, -1, 1, 2.5, Number.NaN, Infinity, 1e9]) {
      expectContractShape(parseFrontmatter(`---\na: ${'['.repeat(5000)}\n---\n`, { maxDepth }));
    }
  });
});

// Keys and strings drawn from characters that exercise quoting, escapes and folding.
const text = fc
  .array(fc.constantFrom(...'ab Z:#-"\'\\\n\t é😀[]{},|>!&*?%@`~01.e'.split(''), ' ', '  ', '\n\n', '\u2028', '\x85', '\0'), {
    maxLength: 14,
  })
  .map((chars) => chars.join(''));
const scalar = fc.oneof(
  text,
  fc.constantFrom('null', 'true', 'False', '~', '1', '-0', '0x1F', '0o7', '1e3', '.inf', '.nan', '1.50', '', ' '),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const { value: yamlValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 4 }),
  ),
}));
const documents = fc.dictionary(text, yamlValue, { minKeys: 1, maxKeys: 5 });
const stringifyOptions = fc.record({
  lineWidth: fc.constantFrom(0, 20, 80),
  minContentWidth: fc.constantFrom(0, 20),
  indent: fc.constantFrom(2, 3, 4),
  indentSeq: fc.boolean(),
  defaultStringType: fc.constantFrom('PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE', 'BLOCK_FOLDED', 'BLOCK_LITERAL'),
  defaultKeyType: fc.constantFrom(null, 'PLAIN', 'QUOTE_DOUBLE'),
  collectionStyle: fc.constantFrom('any', 'block', 'flow'),
  flowCollectionPadding: fc.boolean(),
  doubleQuotedAsJSON: fc.boolean(),
} as const);

/** Whether yaml's own lexer finds an explicit key (`? `), which the parser refuses. */
function usesExplicitKey(source: string): boolean {
  for (const token of new Lexer().lex(source)) if (CST.tokenType(token) === 'explicit-key-ind') return true;
  return false;
}

describe('parseFrontmatter agrees with yaml', () => {
  it('on documents written by yaml.stringify in any style', () => {
    fc.assert(
      fc.property(documents, stringifyOptions, (doc, options) => {
        const source = yamlStringify(doc, options);
        let expected: unknown;
        try {
          expected = yamlParse(source);
        } catch {
          return; // yaml cannot read back some of its own output; nothing to compare
        }
        const ours = parseFrontmatter(`---\n${source}---\n`);
        if (usesExplicitKey(source)) {
          // yaml writes a string that starts "?" and a line break as a plain `?` in flow style, which reads back as an
          // explicit key (yaml's own parse gives {"a": null} for "?\na"): refused by name, as docs/frontmatter.md says.
          expect(ours.diagnostics.map((d) => `${d.code} ${d.message.split(':')[0]}`)).toEqual([
            'YAML_UNSUPPORTED explicit "? " keys are not supported',
          ]);
          return;
        }
        expect(ours.diagnostics).toEqual([]);
        expect(ours.metadata).toEqual(expected);
      }),
      { numRuns: 400 },
    );
  });
});
