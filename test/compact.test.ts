import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactCopies, compactCopy, flatStrings, sharingParents } from '../src/base/compact.js';
import { nameLookup, sortedByName } from '../src/base/name-lookup.js';
import { packPostings, sortedVocabulary } from '../src/catalog/rank/postings.js';
import { anyCodePoint } from './helpers/awkward-text.js';

// Every trick must give back data equal to what it was given: these tests
// check values only, never how V8 stores them (the bench measures that).

describe('compactCopy', () => {
  it('copies parsed frontmatter deeply, values and __proto__ keys intact', () => {
    const parsed = JSON.parse(
      '{"name":"a-long-skill-name","n":2.5,"ok":true,"none":null,"inf":0,"tags":["one-long-tag-here","b"],' +
        '"metadata":{"__proto__":{"x":1},"deep":{"list":[{"k":"value that is long"}]}}}',
    );
    parsed.inf = Infinity;
    const copy = compactCopy(parsed) as Record<string, unknown>;
    expect(copy).toEqual(parsed);
    expect(copy).not.toBe(parsed);
    expect((copy.metadata as Record<string, unknown>).deep).not.toBe((parsed.metadata as Record<string, unknown>).deep);
    expect(Object.keys(copy.metadata as object)).toEqual(['__proto__', 'deep']);
    expect(Object.getPrototypeOf(copy.metadata)).toBe(Object.prototype);
    expect(copy.inf).toBe(Infinity);
  });

  it('gives the same copy whether or not JSON can carry every value', () => {
    const text =
      '{"name":"a-long-skill-name","n":2.5,"ok":true,"none":null,"tags":["one-long-tag-here","b"],' +
      '"metadata":{"__proto__":{"x":1},"deep":{"list":[{"k":"value that is long"}]}}}';
    const plain = JSON.parse(text);
    const copy = compactCopy(plain) as Record<string, unknown>;
    expect(copy).toEqual(plain);
    expect(Object.keys(copy.metadata as object)).toEqual(['__proto__', 'deep']);
    expect(Object.getPrototypeOf(copy.metadata)).toBe(Object.prototype);
    for (const odd of [-0, Number.NaN, Number.NEGATIVE_INFINITY]) {
      const withOdd = { ...JSON.parse(text), odd: [odd] } as Record<string, unknown>;
      expect(Object.is((compactCopy(withOdd) as { odd: number[] }).odd[0], odd)).toBe(true);
    }
  });
});

describe('compactCopies', () => {
  it('gives, in order, what compactCopy gives for each value, JSON-exact or not', () => {
    const scalar = fc.oneof(
      fc.string({ unit: anyCodePoint, maxLength: 20 }),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        scalar,
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom('a', 'b', '__proto__', 'constructor'), tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(fc.array(value, { maxLength: 8 }), (values) => {
        const copies = compactCopies(values);
        expect(copies).toHaveLength(values.length);
        // node's deep strict equality: -0, NaN and own __proto__ keys count.
        values.forEach((original, i) => expect(isDeepStrictEqual(copies[i], compactCopy(original))).toBe(true));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('flatStrings and sharingParents', () => {
  it('flatStrings gives back the same strings in the same order', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: anyCodePoint })), (strings) => {
        expect(flatStrings(strings)).toEqual(strings);
      }),
    );
  });

  it('sharingParents gives back strings equal to the ones it was given, in order', () => {
    const segment = fc.stringMatching(/^[a-z./\\-]{0,6}$/);
    fc.assert(
      fc.property(fc.array(fc.array(segment, { maxLength: 4 })), fc.constantFrom('/', '\\'), (parts, separator) => {
        const paths = parts.map((segments) => segments.join(separator));
        expect(sharingParents(paths, separator)).toEqual(paths);
      }),
    );
    expect(sharingParents(['/lib/a', '/lib/b', 'c', '', '/'], '/')).toEqual(['/lib/a', '/lib/b', 'c', '', '/']);
  });
});

describe('nameLookup', () => {
  it('finds the first item of each name, as a Map filled first-wins would', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 4 }), { maxLength: 40 }), fc.array(fc.string({ maxLength: 4 })), (names, probes) => {
        const items = names.map((name, position) => ({ name, position }));
        const map = new Map<string, { name: string; position: number }>();
        for (const item of items) if (!map.has(item.name)) map.set(item.name, item);
        const find = nameLookup(items, (item) => item.name);
        for (const name of [...names, ...probes]) expect(find(name)).toBe(map.get(name));
      }),
    );
  });

  it('finds nothing in an empty list', () => {
    expect(nameLookup([] as string[], (name) => name)('a')).toBeUndefined();
  });

  it('uses an order given in advance when it is the sorted one, and finds the same whatever order it is given', () => {
    const names = fc.array(fc.string({ maxLength: 3 }), { maxLength: 30 });
    // Any list of numbers as the "stored" order: right, shuffled, too short, out of range, repeated.
    const orders = (length: number) =>
      fc.oneof(
        fc.constant('sorted' as const),
        fc.array(fc.integer({ min: -1, max: length }), { maxLength: length + 1 }).map((list) => Int32Array.from(list)),
      );
    fc.assert(
      fc.property(
        names.chain((list) => fc.tuple(fc.constant(list), orders(list.length))),
        fc.array(fc.string({ maxLength: 3 })),
        ([list, given], probes) => {
          const items = list.map((name, position) => ({ name, position }));
          const map = new Map<string, { name: string; position: number }>();
          for (const item of items) if (!map.has(item.name)) map.set(item.name, item);
          const nameAt = (position: number) => (items[position] as { name: string }).name;
          const order = given === 'sorted' ? sortedByName(items.length, nameAt) : given;
          const find = nameLookup(items, (item) => item.name, order);
          for (const name of [...list, ...probes]) expect(find(name)).toBe(map.get(name));
        },
      ),
    );
  });

  it('checks a given sorted order instead of sorting again', () => {
    const items = Array.from({ length: 1000 }, (_, i) => `skill-${(i * 7919) % 1000}`);
    const count = (order?: Int32Array): number => {
      let reads = 0;
      const find = nameLookup(items, (name) => (reads++, name), order);
      expect(find('skill-500')).toBe('skill-500');
      return reads;
    };
    const order = sortedByName(items.length, (position) => items[position] as string);
    // One comparison of neighbours per item (two names each), then one search; a sort reads about 2 n log n.
    expect(count(order)).toBeLessThan(2 * items.length + 30);
    expect(count()).toBeGreaterThan(10 * items.length);
    expect(count(order.reverse())).toBeGreaterThan(10 * items.length);
  });

  it('sortedByName orders positions by name, ties by position', () => {
    const names = ['b', 'a', 'b', '', 'a'];
    expect([...sortedByName(names.length, (position) => names[position] as string)]).toEqual([3, 1, 4, 0, 2]);
  });
});

describe('sortedVocabulary', () => {
  it('numbers terms in code-unit order, finds each one, and maps every old id to its new one', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 4 })), fc.array(fc.string({ maxLength: 4 })), (terms, probes) => {
        const ids = new Map(terms.map((term, id) => [term, id]));
        const { vocabulary, renumbered } = sortedVocabulary(ids);
        const sorted = [...terms].sort();
        expect(vocabulary.size).toBe(terms.length);
        for (const [term, old] of ids) {
          expect(vocabulary.idOf(term)).toBe(sorted.indexOf(term));
          expect(renumbered[old]).toBe(sorted.indexOf(term));
        }
        for (const probe of probes) if (!ids.has(probe)) expect(vocabulary.idOf(probe)).toBeUndefined();
      }),
    );
  });
});

describe('packPostings', () => {
  const triple = (terms: number, docs: number) =>
    fc.tuple(fc.nat(terms - 1), fc.nat(docs - 1), fc.double({ min: 1e-9, max: 1 - 1e-9, noNaN: true }));

  it('groups postings by term in input order, weights to within 1/65535 and never 0', () => {
    fc.assert(
      fc.property(fc.array(triple(6, 9)), (triples) => {
        const postings = packPostings(6, 9, {
          term: triples.map((t) => t[0]),
          doc: triples.map((t) => t[1]),
          weight: triples.map((t) => t[2]),
        });
        for (let term = 0; term < 6; term++) {
          const expected = triples.filter((t) => t[0] === term);
          const got: Array<[number, number]> = [];
          for (let p = postings.start(term); p < postings.end(term); p++) got.push([postings.doc(p), postings.weight(p)]);
          expect(got.map(([doc]) => doc)).toEqual(expected.map((t) => t[1]));
          got.forEach(([, weight], i) => {
            expect(weight).toBeGreaterThan(0);
            expect(Math.abs(weight - (expected[i]?.[2] ?? 0))).toBeLessThanOrEqual(1 / 65535);
          });
        }
      }),
    );
  });

  it('keeps doc numbers past 65,535 whole', () => {
    const docs = 70_000;
    const postings = packPostings(1, docs, { term: [0, 0, 0], doc: [0, 65_535, 69_999], weight: [0.5, 0.5, 0.5] });
    expect([0, 1, 2].map((p) => postings.doc(p))).toEqual([0, 65_535, 69_999]);
  });
});
