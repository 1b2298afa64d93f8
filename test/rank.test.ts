import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildRankerData, RANKER_SCHEME, rankerDataProblem, rankerFromData } from '../src/catalog/rank/data.js';
import { POSTINGS_CHECKED } from '../src/base/ranker-data.js';
import { createRanker } from '../src/catalog/rank/score.js';
import { queryWords, indexTerms, MAX_QUERY_CHARS, stem, tokenize, whenClauses, words } from '../src/catalog/rank/tokenize.js';
import type { RankEntry } from '../src/catalog/rank/build.js';
import { anyCodePoint, awkwardCharacter, awkwardText, awkwardWord } from './helpers/awkward-text.js';

const entries = [
  { name: 'code-review', description: 'Reviews a change for bugs, security and style. Use when asked to review a pull request.' },
  { name: 'debug', description: 'Finds the cause of a failure from logs and stack traces.' },
  { name: 'deploy-staging', description: 'Deploys the current branch to the staging environment.', tags: ['release', 'ci'] },
  { name: 'pdf', description: 'Reads, fills and merges PDF files.' },
  { name: 'explain', description: 'Explains code to a newcomer. Reviews nothing.' },
];

describe('tokenize and stem', () => {
  it('lowercases, splits on non-alphanumerics, drops stopwords and stems', () => {
    expect(tokenize('Please review THE pull-request, reviewing reviews!')).toEqual(['review', 'pull', 'request', 'review', 'review']);
    expect(tokenize('déboguer l’app 42')).toEqual(['déboguer', 'l', 'app', '42']);
    expect(tokenize('  ...  ')).toEqual([]);
  });

  it('brings common inflections together', () => {
    expect(stem('debugging')).toBe(stem('debug'));
    expect(stem('deployed')).toBe(stem('deploy'));
    expect(stem('releases')).toBe(stem('release'));
    expect(stem('releasing')).toBe(stem('release'));
    expect(stem('policies')).toBe(stem('policy'));
    expect(stem('patches')).toBe(stem('patch'));
    expect(stem('string')).toBe('string');
    expect(stem('analysis')).toBe('analysis');
    expect(stem('speed')).toBe('speed');
    expect(stem('2024')).toBe('2024');
  });

  it('the index build finds the same terms as tokenize, on any text (property)', () => {
    const tricky = awkwardCharacter;
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: anyCodePoint }), fc.string({ unit: tricky, maxLength: 60 })), (text) => {
        expect(indexTerms(text)).toEqual(tokenize(text));
      }),
      { numRuns: 3000 },
    );
    // Enough distinct words to make the build's word table grow several times.
    const many = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}x`).join(' ');
    expect(indexTerms(many)).toEqual(tokenize(many));
  });

  it('splits as the Unicode split does, whichever split it takes (property)', () => {
    // The ASCII split is taken when no letter or digit outside ASCII is in the text: it must give the same words.
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: anyCodePoint }), fc.string({ unit: awkwardCharacter, maxLength: 60 }), awkwardText(12)),
        (text) => {
          const unicode = text
            .toLowerCase()
            .split(/[^\p{L}\p{N}]+/u)
            .filter((word) => word !== '');
          expect(words(text).filter((word) => word !== '')).toEqual(unicode);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('finds the words of "Use when ..." clauses', () => {
    expect(whenClauses('Does X. Use when asked to review. Trigger for audits; also, use this skill if broken')).toBe(
      ' asked to review  audits; also, use this skill if broken',
    );
    expect(whenClauses('Nothing here.')).toBe('');
  });
});

describe('createRanker', () => {
  const ranker = createRanker(entries);

  it('ranks the skill whose name and description carry the query first', () => {
    expect(ranker.rank('can you review my pull request?')[0]?.name).toBe('code-review');
    expect(ranker.rank('it crashes, here is the stack trace')[0]?.name).toBe('debug');
    expect(ranker.rank('merge these pdfs')[0]?.name).toBe('pdf');
    expect(ranker.size).toBe(5);
  });

  it('weights names and tags up', () => {
    // "review" is in explain's description too, but in code-review's name.
    const ranked = ranker.rank('review');
    expect(ranked.map((r) => r.name)).toEqual(['code-review', 'explain']);
    expect(ranker.rank('release')[0]?.name).toBe('deploy-staging');
  });

  it('boosts words of "Use when" clauses', () => {
    const two = createRanker([
      { name: 'a', description: 'Audits invoices. Use when reconciling accounts.' },
      { name: 'b', description: 'Reconciling accounts. Audits invoices.' },
    ]);
    expect(two.rank('reconciling accounts').map((r) => r.name)).toEqual(['a', 'b']);
  });

  it('returns scores in (0, 1], best first, ties broken by name, only matches', () => {
    const twins = createRanker([
      { name: 'zeta', description: 'same words here' },
      { name: 'alpha', description: 'same words here' },
      { name: 'other', description: 'unrelated' },
    ]);
    const ranked = twins.rank('same words');
    expect(ranked.map((r) => r.name)).toEqual(['alpha', 'zeta']);
    expect(ranked[0]?.score).toBe(ranked[1]?.score);
    for (const { score } of [...ranked, ...ranker.rank('review the pull request for security bugs')]) {
      expect(score).toBeGreaterThan(0);
      expect(score).toBeLessThanOrEqual(1);
    }
  });

  it('scores a query that fits one skill well far above a loose match', () => {
    const strong = ranker.rank('review pull request')[0]?.score ?? 0;
    const loose = ranker.rank('review kubernetes terraform helm')[0]?.score ?? 0;
    expect(strong).toBeGreaterThan(0.4);
    expect(loose).toBeLessThan(0.2);
    expect(strong).toBeGreaterThan(2 * loose);
  });

  // The auto-activation threshold compares against this scale (scripts/auto-activate-threshold.mjs).
  it('keeps one matching word of a short request low, however rare the word', () => {
    const library = createRanker([
      ...entries,
      { name: 'openspec-continue-change', description: 'Continue working on a change. Use when the user wants to continue.' },
      { name: 'ai-sdk', description: 'Answers any question about the AI SDK.' },
    ]);
    expect(library.rank('continue')[0]).toMatchObject({ name: 'openspec-continue-change' });
    expect(library.rank('continue')[0]?.score).toBeLessThan(0.3);
    expect(library.rank('I have a question')[0]?.score).toBeLessThan(0.3);
  });

  it('does not let words no skill uses pull a good match down', () => {
    const plain = ranker.rank('review the change to my pull request')[0];
    const withPaths = ranker.rank('review the change to my pull request in src/auth/session.ts for the acme portal')[0];
    expect(withPaths?.name).toBe('code-review');
    expect(withPaths?.score).toBe(plain?.score);
  });

  it('honours limit and returns nothing for empty or unknown queries', () => {
    expect(ranker.rank('review', 1)).toHaveLength(1);
    expect(ranker.rank('review', 0)).toEqual([]);
    expect(ranker.rank('review', Infinity)).toHaveLength(2);
    expect(ranker.rank('the and of')).toEqual([]);
    expect(ranker.rank('zzzz')).toEqual([]);
    expect(createRanker([]).rank('review')).toEqual([]);
  });

  it('the best few of a long list are the head of the full ranking', () => {
    const many = createRanker(
      Array.from({ length: 300 }, (_, i) => ({
        name: `s${String(i % 37).padStart(2, '0')}-${i}`,
        description: `report ${'weekly '.repeat(i % 7)}${i % 3 === 0 ? 'sales' : 'costs'}`,
      })),
    );
    const all = many.rank('weekly sales report');
    expect(all).toHaveLength(300);
    for (const k of [1, 5, 20, 74, 75, 76]) expect(many.rank('weekly sales report', k)).toEqual(all.slice(0, k));
  });

  it('tells apart skills past the 65,536th (postings switch to 32-bit skill numbers)', () => {
    const count = 70_000;
    const large = createRanker(
      Array.from({ length: count }, (_, i) => ({
        name: `skill-${i}`,
        description: i === 68_000 ? 'Tunes the zeppelin.' : i === 2_464 ? 'Cleans the zeppelin.' : 'Does the usual.',
      })),
    );
    // 68,000 is 2,464 modulo 65,536: 16-bit numbers would credit the wrong skill.
    expect(large.rank('tune zeppelin', 2).map((r) => r.name)).toEqual(['skill-68000', 'skill-2464']);
    expect(large.size).toBe(count);
  });

  it('reads only the first MAX_QUERY_CHARS of a long query', () => {
    const long = `${'x '.repeat(MAX_QUERY_CHARS)} review`;
    expect(ranker.rank(long)).toEqual([]);
  });

  it('never throws and stays in range on arbitrary input (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ name: fc.string(), description: fc.string(), tags: fc.array(fc.string(), { maxLength: 3 }) }), {
          maxLength: 30,
        }),
        fc.string(),
        (list, query) => {
          const results = createRanker(list).rank(query);
          for (const r of results) expect(r.score).toBeGreaterThan(0);
          for (const r of results) expect(r.score).toBeLessThanOrEqual(1);
          const again = createRanker(list).rank(query);
          expect(again).toEqual(results);
          expect(createRanker(list).rank(query, 2)).toEqual(results.slice(0, 2));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('queryWords', () => {
  it('lists the words of a query that rank, each with its term, once per term, as written first', () => {
    expect(queryWords('Reviewing my reviews, then the PDF files')).toEqual([
      { word: 'reviewing', term: 'review' },
      { word: 'pdf', term: 'pdf' },
      { word: 'files', term: 'fil' },
    ]);
    expect(queryWords('the and of')).toEqual([]);
  });
});

describe('createRanker finds postings as queries ask, and answers as the whole index does', () => {
  const word = awkwardWord;
  const text = awkwardText(12);
  const entry = fc.record({
    name: fc.constantFrom('a', 'b-c', 'pdf-tools', 'policy'),
    description: text,
    tags: fc.option(fc.array(word, { maxLength: 3 }), { nil: undefined }),
  });
  const query = fc.array(word, { minLength: 1, maxLength: 4 }).map((words) => words.join(' '));

  /** A ranker over the whole index of `entries`, built at once (as a prebuilt index holds it). */
  const wholeIndex = (entries: RankEntry[]) =>
    rankerFromData(
      entries.map((e) => e.name),
      buildRankerData(entries),
    );

  it('answers a first query as the whole index does, whether or not any entry has its words', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), query, (entries, q) => {
        const built = wholeIndex(entries);
        // A word no entry has, first: it is remembered as such, and the next query is answered all the same.
        built.rank('qqqqqq');
        expect(createRanker(entries).rank(q)).toEqual(built.rank(q));
      }),
      { numRuns: 1000 },
    );
  });

  it('finds a first query\'s word where only a "use when" clause has it', () => {
    const cases: Array<[string, string]> = [
      // The clause starts inside the word "whenéclair": its first word, "éclair", is in no other field.
      ['Use whenéclair tarts.', 'éclair'],
      // Alone, the clause "Σ" lowercases to σ; inside the description, after a letter, to ς.
      ['Use whenΣ.', 'σ'],
    ];
    for (const [description, q] of cases) {
      const built = wholeIndex([{ name: 'a', description }]);
      built.rank('qqqqqq');
      expect(built.rank(q)).not.toEqual([]);
      expect(createRanker([{ name: 'a', description }]).rank(q)).toEqual(built.rank(q));
    }
  });

  it('reads the entries as queries ask, from a copy of the list taken at creation', () => {
    const list = [...entries];
    const ranker = createRanker(list);
    list.length = 0;
    expect(ranker.size).toBe(entries.length);
    expect(ranker.rank('review my pull request')[0]?.name).toBe('code-review');
  });
});

describe('createRanker scores as BM25F written out plainly', () => {
  // The module header's formula, term by term, with its constants: name x3 (b 0.5), tags x2 (b 0.5),
  // "use when" clauses x1 and the description x1 (b 0.75), each field's length in characters;
  // k1 = 1.2; evidence floor: 3 rare words.
  const FIELDS = [
    { of: (e: RankEntryLike) => e.name, weight: 3, b: 0.5 },
    { of: (e: RankEntryLike) => (e.tags ?? []).join(' '), weight: 2, b: 0.5 },
    { of: (e: RankEntryLike) => whenClauses(e.description), weight: 1, b: 0.75 },
    { of: (e: RankEntryLike) => e.description, weight: 1, b: 0.75 },
  ];
  interface RankEntryLike {
    name: string;
    description: string;
    tags?: string[];
  }
  const idf = (df: number, n: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5));

  function reference(entries: RankEntryLike[], query: string): Map<string, number> {
    const fields = entries.map((e) => FIELDS.map((f) => tokenize(f.of(e))));
    const lengths = entries.map((e) => FIELDS.map((f) => f.of(e).length));
    const average = FIELDS.map((_, f) => Math.max(lengths.reduce((sum, doc) => sum + (doc[f] ?? 0), 0) / entries.length, 1));
    const terms = [...new Set(tokenize(query))];
    const df = (t: string): number => fields.filter((doc) => doc.some((tokens) => tokens.includes(t))).length;
    const used = terms.filter((t) => df(t) > 0);
    const evidence = Math.max(
      used.reduce((sum, t) => sum + idf(df(t), entries.length), 0),
      3 * idf(1, entries.length),
    );
    const scores = new Map<string, number>();
    entries.forEach((e, d) => {
      let score = 0;
      for (const t of used) {
        let tf = 0;
        FIELDS.forEach((f, i) => {
          const tokens = fields[d]?.[i] ?? [];
          const count = tokens.filter((x) => x === t).length;
          if (count > 0) tf += (count * f.weight) / (1 - f.b + (f.b * (lengths[d]?.[i] ?? 0)) / (average[i] ?? 1));
        });
        if (tf > 0) score += idf(df(t), entries.length) * (tf / (tf + 1.2));
      }
      if (score > 0 && !scores.has(e.name)) scores.set(e.name, score / evidence);
    });
    return scores;
  }

  it('gives each entry the score of the formula (weights are kept to 16 bits)', () => {
    const word = fc.constantFrom(
      'review',
      'reviews',
      'pull',
      'request',
      'deploy',
      'staging',
      'pdf',
      'forms',
      'debug',
      'logs',
      'the',
      'use',
      'when',
      'for',
      '.',
    );
    const text = fc.array(word, { minLength: 1, maxLength: 10 }).map((w) => w.join(' '));
    const entry = fc.record({
      name: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
      description: text,
      tags: fc.option(fc.array(word, { maxLength: 3 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.uniqueArray(entry, { selector: (e) => e.name, minLength: 1, maxLength: 6 }), text, (list, q) => {
        const expected = reference(list, q);
        const got = createRanker(list).rank(q);
        expect(got.map((r) => r.name).sort()).toEqual([...expected.keys()].sort());
        for (const { name, score } of got) expect(Math.abs(score - (expected.get(name) ?? NaN))).toBeLessThan(1e-3);
      }),
      { numRuns: 500 },
    );
  });
});

describe('a ranker as data', () => {
  it('ranks as the ranker built from the same entries, and its data passes its own check', () => {
    const data = buildRankerData(entries);
    expect(data.scheme).toBe(RANKER_SCHEME);
    expect(data.count).toBe(entries.length);
    expect(rankerDataProblem(data)).toBeUndefined();
    const stored = rankerFromData(
      entries.map((e) => e.name),
      data,
    );
    const built = createRanker(entries);
    expect(stored.size).toBe(entries.length);
    for (const query of ['review my pull request', 'merge pdfs', 'release to staging', 'nothing matches zzz', '']) {
      expect(stored.rank(query)).toEqual(built.rank(query));
    }
  });

  it('names what is wrong with damaged data', () => {
    const good = buildRankerData(entries);
    const cases: Array<[string, Partial<typeof good>]> = [
      ['entry count', { count: -1 }],
      ['sorted and distinct', { terms: [...good.terms].reverse() }],
      ['span the postings', { offsets: good.offsets.slice(1) }],
      ['as many weights', { weights: good.weights.slice(1) }],
      ['out of range', { count: 1 }],
      ['out of range', { weights: new Uint16Array(good.weights.length) }],
      ['out of range', { docs: new Uint16Array(good.docs.length) }],
      ['go backwards', { offsets: Int32Array.from(good.offsets, (o, i) => (i === 1 ? good.docs.length : o)) }],
    ];
    for (const [problem, change] of cases) expect(rankerDataProblem({ ...good, ...change }), problem).toContain(problem);
  });

  it('for postings a reader decoded and checked itself, checks the terms and offsets but not each posting again', () => {
    const good = buildRankerData(entries);
    // Damage to single postings: the reader's decoding is what refuses it (test/prebuilt-codec.test.ts).
    expect(rankerDataProblem({ ...good, weights: new Uint16Array(good.weights.length) }, POSTINGS_CHECKED)).toBeUndefined();
    expect(rankerDataProblem({ ...good, terms: [...good.terms].reverse() }, POSTINGS_CHECKED)).toContain('sorted and distinct');
    expect(rankerDataProblem({ ...good, offsets: good.offsets.slice(1) }, POSTINGS_CHECKED)).toContain('span the postings');
    expect(rankerDataProblem({ ...good, count: -1 }, POSTINGS_CHECKED)).toContain('entry count');
  });
});
