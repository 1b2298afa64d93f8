// Hostile frontmatter for the parser's time-per-byte check: each family
// builds a text of about `size` characters inside closed fences, so every
// layer (split, lexer, compose) sees it.
import { createRandom } from './prng.mjs';

const fence = (yaml) => `---\n${yaml}\n---\nbody\n`;

/** Repeat `unit(i)` until the text reaches `size` characters. */
function fill(size, unit) {
  const parts = [];
  let length = 0;
  for (let i = 0; length < size; i++) {
    const part = unit(i);
    parts.push(part);
    length += part.length;
  }
  return parts.join('');
}

const LONG_LINE = 100_000;

export const FAMILIES = {
  /** Block maps nested ever deeper (past the depth limit), then again from the top. */
  'deep-block-nesting': (size) => fence(fill(size, (i) => `${' '.repeat((i % 200) * 2)}k${i}:\n`)),
  /** Flow sequences opened many levels deep, closed, repeated. */
  'deep-flow-nesting': (size) => fence(fill(size, (i) => `k${i}: ${'['.repeat(200)}x${']'.repeat(200)}\n`)),
  /** Plain scalars on 100k-character lines. */
  'long-lines': (size) => fence(fill(size, (i) => `k${i}: ${'word '.repeat(Math.min(size, LONG_LINE) / 5)}\n`)),
  /** Double-quoted scalars on long lines, full of escapes. */
  'long-escaped-lines': (size) => fence(fill(size, (i) => `k${i}: "${'a\\"b\\\\c\\u00e9\\n '.repeat(Math.min(size, LONG_LINE) / 16)}"\n`)),
  /** A double quote opened and never closed, over many lines. */
  'unclosed-quote': (size) => fence(`description: "${fill(size, () => 'still inside the quote, \\" escaped\n  ')}`),
  /** A flow sequence opened and never closed, over many lines. */
  'unclosed-flow': (size) => fence(`tags: [${fill(size, (i) => `item${i}, {k: [v, `)}`),
  /** Random YAML punctuation. */
  'random-punctuation': (size) => {
    const random = createRandom(size);
    const alphabet = ':-[]{}#&*!|>\'"%@,?` \n\tab';
    let text = '';
    while (text.length < size) text += alphabet[random.int(0, alphabet.length - 1)];
    return fence(text);
  },
};
