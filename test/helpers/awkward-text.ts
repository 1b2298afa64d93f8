/**
 * Text that is hard to tokenise the same way twice, for the ranker's property
 * tests: characters that change under lowercasing, split words or pair as
 * surrogates, and words that stem, fold case, carry accents or sigma, hide
 * inside other words, or are stopwords.
 */
import fc from 'fast-check';

/**
 * Any one code point, lone surrogate halves included: what fast-check's
 * `unit: 'binary'` draws, without its set-up (building that unit maps every
 * code point once, 3 s of CPU in each test worker that asks for it).
 */
export const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code));

/** Single characters (or halves of a surrogate pair) and a few stopwords. */
export const awkwardCharacter = fc.constantFrom(
  'a',
  'B',
  'É',
  'ß',
  'İ',
  // The Kelvin sign lowercases to "k"; the long s is an "s" only to case-insensitive matching.
  '\u212a',
  'ſ',
  'Σ',
  'ς',
  ' ',
  '-',
  '’',
  '\uD835',
  '\uDC00',
  '😀',
  '𝐀',
  '1',
  '٣',
  'ǂ',
  'ı',
  'the',
  'an',
  'and',
);

/** Whole words. */
export const awkwardWord = fc.constantFrom(
  'policies',
  'policy',
  'Review',
  'reviewing',
  'reviewed',
  'debugging',
  'debug',
  'release',
  'releases',
  'shell',
  'hello',
  'hell',
  'éclair',
  'whenéclair',
  'ΣΑΣ',
  'σας',
  'İstanbul',
  'istanbul',
  '2024',
  'the',
  'use',
  'skill',
  'x',
  'y',
  'ies',
  'K',
  'pdf',
  'PDFs',
  '—',
  '’',
  '😀',
);

/** Up to `maxLength` awkward words and "use when" clause openers, joined by spaces. */
export function awkwardText(maxLength: number): fc.Arbitrary<string> {
  return fc
    .array(fc.oneof(awkwardWord, fc.constantFrom('Use when', 'trigger for', '.', ',', ' ', '-')), { maxLength })
    .map((parts) => parts.join(' '));
}
