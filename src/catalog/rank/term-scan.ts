/**
 * The lazy term scan: a ranker built from a scan tokenises nothing up front.
 * A query's terms not met before are found by reading only the entries that
 * may hold them, and only their words that start as such a term does; the
 * postings found are kept, and are the whole build's (build.ts), bit for bit.
 * After SCANS_BEFORE_WHOLE_INDEX scans the whole index is built instead.
 */
import {
  averageLengths,
  buildIndex,
  FIELDS,
  fieldNorm,
  fieldTexts,
  idfOf,
  indexOf,
  K1,
  wholeIndex,
  writeFieldLengths,
  type Bm25Index,
  type IndexSource,
  type RankEntry,
} from './build.js';
import { GrowingPostings } from './postings.js';
import { termOf, unicodeWords, whenClauses } from './tokenize.js';

/**
 * A ranker's index built from a scan. Up front only each field's length
 * (characters: no entry's words are read) and their averages; a term's
 * postings are found when a query first has it, reading only the entries
 * that may hold one of the query's new terms (mayHoldTerms), of their words
 * only those that start as such a term does, and kept (GrowingPostings).
 * The postings are the whole index's (tokenizeEntries, weighTerms,
 * packPostings), bit for bit: the same field lengths and averages, the same
 * tf sums in the same order, the same packing, the same IDFs (tested).
 * Building the whole index up front cost a fresh process some 60 ms at
 * 2,000 skills, the lengths 2 ms, and a run of a few requests asks for a
 * few dozen of its thousands of terms; a ranker that keeps meeting new
 * words builds it after SCANS_BEFORE_WHOLE_INDEX scans (docs/performance.md).
 */
export class TermScan implements IndexSource {
  index: Bm25Index;
  /** What finding a term's postings needs; dropped once the whole index is built (every term known). */
  private scanning: Scanning | undefined;
  /** Scans so far: after SCANS_BEFORE_WHOLE_INDEX, the whole index is built instead. */
  private scans = 0;

  constructor(entries: ReadonlyArray<RankEntry>, weights: readonly number[]) {
    const count = entries.length;
    const fieldCount = FIELDS.length;
    const lengths = new Int32Array(count * fieldCount);
    const asIs = new Uint8Array(count);
    for (let e = 0; e < count; e++) {
      const entry = entries[e] as RankEntry;
      writeFieldLengths(fieldTexts(entry), lengths, e * fieldCount);
      asIs[e] = caseless(entry) ? 1 : 0;
    }
    const postings = new GrowingPostings(count, (frequency) => idfOf(frequency, count));
    this.scanning = { entries, weights, lengths, averageLength: averageLengths(lengths, count), asIs, postings };
    this.index = indexOf(
      entries.map((entry) => entry.name),
      postings,
      postings,
      postings.idf,
    );
  }

  /**
   * Finds and keeps the postings of those of `terms` whose postings are not
   * known yet; once it has scanned SCANS_BEFORE_WHOLE_INDEX times, builds
   * the whole index instead, after which every term is known.
   */
  learn(terms: readonly string[]): void {
    const scanning = this.scanning;
    if (!scanning) return;
    const unknown = [...new Set(terms.filter((term) => !scanning.postings.knows(term)))];
    if (unknown.length === 0) return;
    if (this.scans >= SCANS_BEFORE_WHOLE_INDEX) {
      this.index = wholeIndex(this.index.names, buildIndex(scanning.entries, scanning.weights));
      // Only the whole index stays: the entries belong to the caller.
      this.scanning = undefined;
      return;
    }
    this.scans++;
    scanTerms(scanning, unknown);
    // The IDFs' array is replaced as it grows.
    this.index.idf = scanning.postings.idf;
  }
}

/** What a TermScan reads to find a term's postings, and the postings found. */
interface Scanning {
  entries: ReadonlyArray<RankEntry>;
  /** Field weights (RankTuning.fields). */
  weights: readonly number[];
  /** Field f of entry e is lengths[e * FIELDS.length + f] characters long. */
  lengths: Int32Array;
  averageLength: Float64Array;
  /** 1 where an entry's texts can be searched as they are (`caseless`), lowercased when 0. */
  asIs: Uint8Array;
  postings: GrowingPostings;
}

/** Finds the postings of `terms` (none known yet) and adds them to `scanning.postings`. */
function scanTerms({ entries, weights, lengths, averageLength, asIs, postings }: Scanning, terms: readonly string[]): void {
  const fieldCount = FIELDS.length;
  const mayHave = mayHoldTerms(terms);
  const slot = new Map(terms.map((term, i) => [term, i]));
  const docs: number[][] = terms.map(() => []);
  const saturated: number[][] = terms.map(() => []);
  // One entry's occurrences of each term, field by field (field-major: f * terms + i), and its tf per term.
  const occurrences = new Int32Array(fieldCount * terms.length);
  const tf = new Float64Array(terms.length);
  for (let e = 0; e < entries.length; e++) {
    const entry = entries[e] as RankEntry;
    if (!mayHave.entry(entry, asIs[e] === 1)) continue;
    const texts = fieldTexts(entry);
    let found = false;
    for (let f = 0; f < fieldCount; f++) {
      const text = texts[f] ?? '';
      if (text === '') continue;
      for (const word of mayHave.words(text.toLowerCase())) {
        const i = slot.get(termOf(word) ?? '');
        if (i === undefined) continue;
        occurrences[f * terms.length + i] = (occurrences[f * terms.length + i] ?? 0) + 1;
        found = true;
      }
    }
    if (!found) continue;
    // As weighTerms sums a doc's tf: a field's norm added once per occurrence, field by field.
    for (let f = 0; f < fieldCount; f++) {
      const norm = fieldNorm(weights, f, lengths[e * fieldCount + f] ?? 0, averageLength);
      for (let i = 0; i < terms.length; i++) {
        for (let n = occurrences[f * terms.length + i] ?? 0; n > 0; n--) tf[i] = (tf[i] ?? 0) + norm;
        occurrences[f * terms.length + i] = 0;
      }
    }
    for (let i = 0; i < terms.length; i++) {
      const value = tf[i] ?? 0;
      if (value === 0) continue;
      docs[i]?.push(e);
      saturated[i]?.push(value / (value + K1));
      tf[i] = 0;
    }
  }
  terms.forEach((term, i) => postings.add(term, docs[i] ?? [], saturated[i] ?? []));
}

/**
 * Scans a ranker makes before it builds the whole index: a ranker that keeps
 * meeting new words (a server's) then pays for the build once, and each new
 * word after it costs nothing; one that answers a few requests (an agent
 * run from the command line) never builds it. At 2,000 real-shaped skills a
 * scan costs 1-6 ms warm and the whole build about 25 (docs/performance.md):
 * about what the scans before it cost.
 */
export const SCANS_BEFORE_WHOLE_INDEX = 8;

/**
 * Where entries and texts may have a word whose term is one of `terms`. A
 * term is its word less a suffix, or with "ies" made "y" (see `stem`), so a
 * word giving term t starts with t, or with t less its final "y": looked for
 * with regular expressions at word starts, no per-word work. `entry` is
 * false for an entry without such a word (`asIs`: whether its texts can be
 * searched as they are, as `caseless` tells); `words` gives the words of a
 * lowercased text that start so (those to look up), as tokenize splits them.
 */
function mayHoldTerms(terms: readonly string[]): {
  entry: (entry: RankEntry, asIs: boolean) => boolean;
  words: (lower: string) => string[];
} {
  // Terms are letters and digits only: nothing to escape.
  const starts = terms.map((term) => (term.endsWith('y') ? term.slice(0, -1) : term)).join('|');
  // Plain searches, made for each scan: a word start is checked in code (wordCharBefore), not by a lookbehind of
  // Unicode classes, which cost 0.5-1 ms each to compile (three of them were most of a warm scan's time).
  const anywhere = new RegExp(starts, 'g');
  // Whole words, split as `words` splits them: on ASCII letters and digits where no other letter is.
  const asciiWords = new RegExp(`(?<![a-z0-9])(?:${starts})[a-z0-9]*`, 'g');
  // Lowercasing a sigma depends on what is around it, so a piece of a text may lowercase otherwise.
  const sigma = /[σς]/u.test(starts);
  // Terms of ASCII letters and digits are searched for in a text as it is, any case: no lowercased copy of
  // every text (at 20,000 skills, most of a scan's time). Exact for a text without LOWERCASES_TO_ASCII.
  const asciiTerms = /^[a-z0-9|]*$/.test(starts);
  const anywhereAnyCase = new RegExp(starts, 'gi');
  /** Whether `text` holds a term at a word start, once lowercased; `anyCase`: searched as it is (asciiTerms, and no LOWERCASES_TO_ASCII in it). */
  const holds = (text: string, anyCase: boolean): boolean =>
    (anyCase ? termAt(anywhereAnyCase, text) : termAt(anywhere, text.toLowerCase())) === 'word start';
  return {
    words: (lower) => (unicodeWords(lower) ? wordsFrom(anywhere, lower) : (lower.match(asciiWords) ?? [])),
    entry(entry, asIs) {
      const anyCase = asciiTerms && asIs;
      if (holds(entry.name, anyCase)) return true;
      if (entry.tags && holds(entry.tags.join(' '), anyCase)) return true;
      const { description } = entry;
      // The description as it is searched, once: most descriptions hold no term at all.
      const found = anyCase ? termAt(anywhereAnyCase, description) : termAt(anywhere, description.toLowerCase());
      if (found === 'word start') return true;
      // "Use when" clauses are pieces of the description: what it does not hold at all, they do not.
      return (sigma || found === 'inside a word') && holds(whenClauses(description), anyCase);
    },
  };
}

/** A letter or digit: what `(?<![\p{L}\p{N}])` looks back for. Compiled once. */
const WORD_CHAR = /[\p{L}\p{N}]/u;

/** The letters and digits from lastIndex on. */
const WORD_CHARS_FROM = /[\p{L}\p{N}]*/uy;

/** Whether the code point that ends at `index` of `text` is a letter or a digit (a surrogate pair read as one). */
function wordCharBefore(text: string, index: number): boolean {
  if (index === 0) return false;
  const unit = text.charCodeAt(index - 1);
  if (unit < 0x80) return (unit >= 0x30 && unit <= 0x39) || (unit >= 0x61 && unit <= 0x7a) || (unit >= 0x41 && unit <= 0x5a);
  const high = index >= 2 ? text.charCodeAt(index - 2) : 0;
  const pair = unit >= 0xdc00 && unit <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
  return WORD_CHAR.test(text.slice(pair ? index - 2 : index - 1, index));
}

/** What nextWordStart gives when `search` matches nowhere from its lastIndex on, and when it matches only inside words. */
const NO_MATCH = -1;

const ONLY_INSIDE_WORDS = -2;

/**
 * Where the next match of `search` (a 'g' expression of terms' starts), from
 * its lastIndex on, has no letter or digit before it; lastIndex is then the
 * match's end. Else NO_MATCH or ONLY_INSIDE_WORDS.
 */
function nextWordStart(search: RegExp, text: string): number {
  let missed = NO_MATCH;
  for (let match = search.exec(text); match !== null; match = search.exec(text)) {
    if (!wordCharBefore(text, match.index)) return match.index;
    missed = ONLY_INSIDE_WORDS;
    // Inside a match every position follows a letter or digit, so none is a word start: the search goes on after it.
    if (match[0] === '') search.lastIndex = nextCodePoint(text, match.index);
  }
  return missed;
}

/** Where `search` (a 'g' expression of terms' starts) matches `text`: somewhere no letter or digit is before, only inside words, or nowhere. */
function termAt(search: RegExp, text: string): 'word start' | 'inside a word' | 'nowhere' {
  search.lastIndex = 0;
  const start = nextWordStart(search, text);
  if (start >= 0) return 'word start';
  return start === ONLY_INSIDE_WORDS ? 'inside a word' : 'nowhere';
}

/** The words of `lower` that start with a match of `search` (a 'g' expression) where no letter or digit is before. */
function wordsFrom(search: RegExp, lower: string): string[] {
  const found: string[] = [];
  search.lastIndex = 0;
  for (let start = nextWordStart(search, lower); start >= 0; start = nextWordStart(search, lower)) {
    WORD_CHARS_FROM.lastIndex = search.lastIndex;
    WORD_CHARS_FROM.exec(lower);
    const end = WORD_CHARS_FROM.lastIndex;
    if (end > start) found.push(lower.slice(start, end));
    search.lastIndex = end > start ? end : nextCodePoint(lower, start);
  }
  return found;
}

/**
 * The index after the code point at `index`: a search that matched nothing
 * there goes on from it, never from inside a surrogate pair (as a /u
 * expression would), where the empty term start would match again.
 */
function nextCodePoint(text: string, index: number): number {
  const unit = text.charCodeAt(index);
  const next = text.charCodeAt(index + 1);
  return unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? index + 2 : index + 1;
}

/** Whether the texts of `entry` can be searched in any case, not lowercased (mayHoldTerms): none holds a letter of LOWERCASES_TO_ASCII. */
function caseless(entry: RankEntry): boolean {
  return (
    !LOWERCASES_TO_ASCII.test(entry.name) &&
    !LOWERCASES_TO_ASCII.test(entry.description) &&
    !(entry.tags ?? []).some((tag) => LOWERCASES_TO_ASCII.test(tag))
  );
}

/**
 * The letters outside ASCII whose lowercase holds an ASCII letter (İ, the
 * Kelvin sign): a text with one is lowercased before it is searched. No
 * other letter's lowercase does, and lowercasing keeps what is a letter or
 * digit (checked over every code point).
 */
const LOWERCASES_TO_ASCII = /[\u0130\u212a]/;
