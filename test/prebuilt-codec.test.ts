/**
 * The compact index's codecs (src/source/prebuilt/codec-*.ts): every value
 * written reads back the same, and bytes that were not written so (cut
 * short, a byte flipped, a length past the end, a section that claims or
 * makes gigabytes) throw DamagedIndexError, never another error, and never
 * allocate more than the bytes they were given can justify.
 */
import { Buffer } from 'node:buffer';
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PostingsData } from '../src/base/ranker-data.js';
import { ByteReader, ByteWriter, DamagedIndexError } from '../src/index/prebuilt/codec-bytes.js';
import { Container, containerVersion, MAX_INFLATED_BYTES, writeContainer } from '../src/index/prebuilt/codec-container.js';
import { readPostings, writePostings } from '../src/index/prebuilt/codec-postings.js';
import { readRanker, writeBody, writeRanker, type PrebuiltRankerData } from '../src/index/prebuilt/codec-ranker.js';
import { SkillTable, writeSkills, type SkillRecord } from '../src/index/prebuilt/codec-skills.js';
import { decodeSkills } from '../src/index/prebuilt/read-skills.js';
import { buildRankerData, RANKER_FORMAT } from '../src/catalog/rank/data.js';
import { RANKER_BUILDER } from '../src/catalog/saved-ranker.js';

/** What `read` gives for `bytes`: its value, or the DamagedIndexError's message (any other throw fails the test). */
function outcome<T>(read: () => T): { value: T } | { damaged: string } {
  try {
    return { value: read() };
  } catch (error) {
    if (error instanceof DamagedIndexError) return { damaged: error.message };
    throw error;
  }
}

/**
 * `data` with every term's postings decoded (they are decoded as ranking first asks for a term), and without the
 * decoder: what a reader gives, as a ranker that asked for every term reads it. The terms that did not decode.
 */
function decodedAll<T extends PostingsData>(data: T): { data: Omit<T, 'pending'>; damaged: number[] } {
  const { pending, ...rest } = data;
  const damaged = rest.terms.map((_, t) => t).filter((t) => pending !== undefined && !pending.decode(t));
  return { data: rest, damaged };
}

describe('varints, typed arrays and JSON', () => {
  const kinds = [Uint8Array, Uint16Array, Uint32Array, Int32Array, Float32Array, Float64Array] as const;

  it('read back what was written, in order, and nothing more (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.nat({ max: 0xffffffff }).map((n) => ({ n })),
            fc
              .tuple(fc.nat({ max: kinds.length - 1 }), fc.array(fc.nat({ max: 255 }), { maxLength: 9 }))
              .map(([k, values]) => ({ k, values })),
            fc.jsonValue({ maxDepth: 2 }).map((json) => ({ json })),
            fc.array(fc.string({ unit: 'binary' }), { maxLength: 4 }).map((strings) => ({ strings })),
          ),
          { maxLength: 20 },
        ),
        (items) => {
          const out = new ByteWriter();
          for (const item of items) {
            if ('n' in item) out.varint(item.n);
            else if ('k' in item) out.typed((kinds[item.k] as (typeof kinds)[number]).from(item.values));
            else if ('json' in item) out.json(item.json);
            else out.json(item.strings);
          }
          const input = new ByteReader(out.result(), 'test');
          for (const item of items) {
            if ('n' in item) expect(input.varint()).toBe(item.n);
            else if ('k' in item) {
              const kind = kinds[item.k] as (typeof kinds)[number];
              // Any of the kinds: typed() is generic over them.
              const back = input.typed(kind as typeof Uint8Array, item.values.length);
              expect(back).toBeInstanceOf(kind);
              expect([...back]).toEqual(item.values);
            } else if ('json' in item) expect(input.json()).toEqual(JSON.parse(JSON.stringify(item.json)));
            else expect(input.strings(item.strings.length)).toEqual(item.strings);
          }
          input.end();
        },
      ),
    );
  });

  it('JSON is written in ASCII only, every other character as an escape that reads back the same', () => {
    const value = { description: 'résumé’s “summary” 履歴書 📄 \u0001', lone: '\ud800' };
    const bytes = new ByteWriter().json(value).result();
    expect([...bytes].every((byte) => byte < 0x80)).toBe(true);
    expect(new ByteReader(bytes, 'test').json()).toEqual(value);
  });

  it('the edges of a varint: one byte to 127, five bytes to 2^32 - 1, and no further', () => {
    for (const [value, length] of [
      [0, 1],
      [127, 1],
      [128, 2],
      [16_383, 2],
      [2 ** 28 - 1, 4],
      [2 ** 28, 5],
      [2 ** 32 - 1, 5],
    ] as const) {
      const bytes = new ByteWriter().varint(value).result();
      expect(bytes.length, String(value)).toBe(length);
      expect(new ByteReader(bytes, 'test').varint()).toBe(value);
    }
    // A fifth byte past 4 bits, or a sixth byte: no writer makes them.
    expect(outcome(() => new ByteReader(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x10), 'test').varint())).toEqual({
      damaged: 'test holds a number past 32 bits',
    });
    expect(outcome(() => new ByteReader(Uint8Array.of(0x80, 0x80), 'test').varint())).toEqual({ damaged: 'test ends inside a number' });
  });

  it('refuses counts and lengths past the end before allocating for them', () => {
    // An array that claims a billion values in a few bytes, and a block longer than what is left.
    expect(outcome(() => new ByteReader(new ByteWriter().varint(1e9).result(), 'test').typed(Float64Array))).toEqual({
      damaged: 'test ends before its values',
    });
    expect(outcome(() => new ByteReader(new ByteWriter().typed(Uint16Array.of(1, 2)).result(), 'test').typed(Uint16Array, 3))).toEqual({
      damaged: 'test holds 2 values where 3 belong',
    });
    expect(outcome(() => new ByteReader(new ByteWriter().varint(50).raw(Buffer.from('abc')).result(), 'test').json())).toEqual({
      damaged: 'test ends before its data (a block of 50 bytes, 3 left)',
    });
    expect(outcome(() => new ByteReader(new ByteWriter().block(Buffer.from('{"a":')).result(), 'test').json())).toMatchObject({
      damaged: expect.stringMatching(/^test holds text that is not JSON/),
    });
    expect(outcome(() => new ByteReader(new ByteWriter().json(['a', 1]).result(), 'test').strings())).toEqual({
      damaged: 'test does not hold a list of strings where they belong',
    });
    expect(outcome(() => new ByteReader(new ByteWriter().varint(7).result(), 'test').count(5, 'a count of'))).toEqual({
      damaged: 'test has a count of 7, past 5',
    });
    const trailing = new ByteReader(Uint8Array.of(1, 2), 'test');
    trailing.varint();
    expect(outcome(() => trailing.end())).toEqual({ damaged: 'test has 1 bytes past its data' });
  });
});

/** Random postings over `count` docs, as the ranker packs them: terms sorted, docs ascending within a term, weights 1 and up. */
const postingsArbitrary = fc.integer({ min: 1, max: 300 }).chain((count) =>
  fc
    .uniqueArray(fc.stringMatching(/^[a-z0-9]{1,8}$/), { maxLength: 40 })
    .chain((terms) =>
      fc.tuple(
        fc.constant(count),
        fc.constant([...terms].sort()),
        fc.array(fc.uniqueArray(fc.nat({ max: count - 1 }), { maxLength: 30 }), { minLength: terms.length, maxLength: terms.length }),
        fc.array(fc.integer({ min: 1, max: 0xffff }), { minLength: 1, maxLength: 12 }),
      ),
    )
    .map(([count, terms, docLists, palette]) => {
      const offsets = new Int32Array(terms.length + 1);
      const docs: number[] = [];
      const weights: number[] = [];
      docLists.forEach((list, t) => {
        for (const doc of [...list].sort((a, b) => a - b)) {
          docs.push(doc);
          weights.push(palette[(doc * 7 + t) % palette.length] as number);
        }
        offsets[t + 1] = docs.length;
      });
      const data: PostingsData = { terms, offsets, docs: Uint16Array.from(docs), weights: Uint16Array.from(weights) };
      return { count, data };
    }),
);

describe('postings', () => {
  it('read back as the very arrays written (property)', () => {
    fc.assert(
      fc.property(postingsArbitrary, ({ count, data }) => {
        const out = new ByteWriter();
        writePostings(data, count, out);
        const input = new ByteReader(out.result(), 'test');
        const read = readPostings(input, count);
        input.end();
        // Nothing decoded before a term is asked for; then each term's postings, and none damaged.
        expect(read.docs.every((doc) => doc === 0)).toBe(true);
        const { data: back, damaged } = decodedAll(read);
        expect(damaged).toEqual([]);
        expect(read.pending?.damage).toBeUndefined();
        expect(back.terms).toEqual(data.terms);
        expect(back.offsets).toEqual(data.offsets);
        expect(back.docs).toEqual(data.docs);
        expect(back.weights).toEqual(data.weights);
      }),
    );
  });

  it('docs in 32 bits past 65,536 entries, as the ranker packs them', () => {
    const data: PostingsData = {
      terms: ['a'],
      offsets: Int32Array.of(0, 2),
      docs: Uint32Array.of(5, 70_000),
      weights: Uint16Array.of(3, 9),
    };
    const out = new ByteWriter();
    writePostings(data, 70_001, out);
    const { data: back } = decodedAll(readPostings(new ByteReader(out.result(), 'test'), 70_001));
    expect(back.docs).toBeInstanceOf(Uint32Array);
    expect([...back.docs]).toEqual([5, 70_000]);
  });

  it("any byte changed or cut is damage, at reading or at a term's first use, or postings the ranker may read (property)", () => {
    fc.assert(
      fc.property(postingsArbitrary, fc.nat(), fc.integer({ min: 1, max: 255 }), fc.boolean(), ({ count, data }, at, flip, cut) => {
        const out = new ByteWriter();
        writePostings(data, count, out);
        const bytes = Buffer.from(out.result());
        const position = at % bytes.length;
        const hostile = cut ? bytes.subarray(0, position) : (bytes.writeUInt8(bytes[position]! ^ flip, position), bytes);
        const result = outcome(() => {
          const input = new ByteReader(hostile, 'test');
          const back = readPostings(input, count);
          input.end();
          return back;
        });
        if (!('value' in result)) return;
        // What the reader promises the ranker (POSTINGS_CHECKED), so the ranker does not look at each posting again:
        // every term that decodes has postings in range; one that does not has none, and the one warning says so.
        const { pending } = result.value;
        const { data: back, damaged } = decodedAll(result.value);
        expect(postingProblem(withoutTerms(back, damaged), count)).toBeUndefined();
        if (damaged.length > 0) expect(pending?.damage).toMatchObject({ code: 'INDEX_UNUSABLE', severity: 'warning' });
        else expect(pending?.damage).toBeUndefined();
      }),
    );
  });
});

/** `data` with the postings of `terms` left out (what a ranker reads of terms found damaged: none). */
function withoutTerms(data: PostingsData, terms: readonly number[]): PostingsData {
  if (terms.length === 0) return data;
  const skip = new Set(terms);
  const offsets = new Int32Array(data.offsets.length);
  const kept: number[] = [];
  for (let t = 0; t + 1 < data.offsets.length; t++) {
    if (!skip.has(t)) for (let p = data.offsets[t]!; p < data.offsets[t + 1]!; p++) kept.push(p);
    offsets[t + 1] = kept.length;
  }
  const docs = Uint32Array.from(kept, (p) => data.docs[p]!);
  return { terms: data.terms, offsets, docs, weights: Uint16Array.from(kept, (p) => data.weights[p]!) };
}

/** The first posting that breaks what POSTINGS_CHECKED promises (docs ascending within a term, under `count`; no weight 0), or undefined. */
function postingProblem({ offsets, docs, weights }: PostingsData, count: number): string | undefined {
  if (weights.length !== docs.length || offsets[offsets.length - 1] !== docs.length) return 'not as many weights and offsets as docs';
  for (let t = 0; t + 1 < offsets.length; t++) {
    for (let p = offsets[t]!, previous = -1; p < offsets[t + 1]!; previous = docs[p]!, p++) {
      if (docs[p]! <= previous || docs[p]! >= count || weights[p] === 0) return `posting ${p}`;
    }
  }
  return undefined;
}

const skills: SkillRecord[] = [
  {
    metadata: { name: 'pdf', description: 'Fill PDF forms.', tags: ['pdf'] },
    directory: './skills/pdf',
    size: 120,
    mtimeMs: 1.5e12 + 0.25,
  },
  // The name not first (keys keep their order), and a folder named otherwise than the skill.
  { metadata: { description: 'Déployer « vite ».', name: 'deploy' }, directory: './skills/ops/deploy-it', size: 90, mtimeMs: 1.6e12 },
  {
    metadata: JSON.parse('{"name":"proto","description":"Keeps its own key.","__proto__":{"x":1},"limit":null}') as SkillRecord['metadata'],
    directory: '../elsewhere/proto',
    file: '../elsewhere/proto/skill.md',
    size: 0,
    mtimeMs: 0,
    specials: [[['limit'], 'NaN']],
  },
  // Folders with no parent to share: stored whole.
  // A description past Latin-1 (stored in UTF-16, code unit by code unit: a lone surrogate too).
  { metadata: { name: 'root', description: 'The root itself — 日本 😀 \ud800.' }, directory: '.', size: 1, mtimeMs: 2 },
  { metadata: { name: 's3', description: 'In a bucket.' }, directory: 's3://bucket/skills/s3', size: 3, mtimeMs: 4 },
];

function tableOf(records: readonly SkillRecord[]): SkillTable {
  const out = new ByteWriter();
  writeSkills(records, out);
  return new SkillTable(new ByteReader(out.result(), 'test'), records.length);
}

describe('skills', () => {
  it('read back field by field: metadata with its keys in order and own __proto__, folders, stamps, exceptions', () => {
    const table = tableOf(skills);
    skills.forEach((record, i) => {
      const metadata = table.metadata[i] as Record<string, unknown>;
      expect(JSON.stringify(metadata)).toBe(JSON.stringify(record.metadata));
      expect(Object.keys(metadata)).toEqual(Object.keys(record.metadata));
      const [parent, leaf] = [table.parent(i), table.leaf(i)];
      // "" as the folder's own name: the skill's name.
      const own = leaf === '' ? record.metadata.name : leaf;
      expect(parent === 0 ? leaf : `${table.parents[parent - 1]}/${own}`).toBe(record.directory);
      expect(table.file(i)).toBe(record.file);
      expect([table.sizes[i], table.mtimes[i]]).toEqual([record.size, record.mtimeMs]);
      expect(table.specials(i)).toEqual(record.specials);
    });
    expect(table.leaf(0)).toBe('');
    expect(table.leaf(1)).toBe('deploy-it');
    expect(Object.hasOwn(table.metadata[2] as object, '__proto__')).toBe(true);
    expect(table.metadata.map((m) => m.description)).toEqual(skills.map((record) => record.metadata.description));
    expect(table.parents).toEqual(['./skills', './skills/ops', '../elsewhere', 's3://bucket/skills']);
  });

  it('any byte changed or cut is damage, or a table of as many skills (property)', () => {
    const out = new ByteWriter();
    writeSkills(skills, out);
    const bytes = out.result();
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 1, max: 255 }), fc.boolean(), (at, flip, cut) => {
        const hostile = Buffer.from(bytes);
        const position = at % hostile.length;
        hostile[position] = hostile[position]! ^ flip;
        const result = outcome(() => {
          return new SkillTable(new ByteReader(cut ? bytes.subarray(0, position) : hostile, 'test'), skills.length);
        });
        if ('value' in result) expect(result.value.count).toBe(skills.length);
      }),
    );
  });
});

describe('the container', () => {
  const sections = new Map([
    ['a', Buffer.from('first section '.repeat(100))],
    ['b', Buffer.alloc(0)],
    ['c', Buffer.from([1, 2, 3])],
  ]);
  const file = writeContainer({ version: 3, header: { note: 'héllo' }, sections, level: 6 });

  it('names its format and version on its first line; reads back header and sections; skips none it does not know', () => {
    expect(file.subarray(0, 20).toString('latin1')).toBe('sisu-skills-index 3\n');
    expect(containerVersion(file)).toBe(3);
    expect(containerVersion(Buffer.from('  {"format": "sisu-skills-index", "version": 2}'))).toBe('json');
    expect(containerVersion(Buffer.from('PK\u0003\u0004 a zip'))).toBeUndefined();
    const opened = Container.open(file);
    expect(opened.header.note).toBe('héllo');
    for (const [name, bytes] of sections) expect(opened.section(name)).toEqual(bytes);
    expect(opened.section('manifests')).toBeUndefined();
    expect(opened.has('a')).toBe(true);
  });

  it('takes its sections one at a time, in order, and refuses a name given twice', () => {
    const given: string[] = [];
    function* oneAtATime(): Generator<readonly [string, Uint8Array]> {
      for (const [name, bytes] of sections) {
        given.push(name);
        yield [name, bytes];
      }
    }
    expect(writeContainer({ version: 3, header: { note: 'héllo' }, sections: oneAtATime(), level: 6 })).toEqual(file);
    expect(given).toEqual(['a', 'b', 'c']);
    const twice = [['a', Buffer.from('x')] as const, ['a', Buffer.from('y')] as const];
    expect(() => writeContainer({ version: 3, header: {}, sections: twice, level: 6 })).toThrow('index section "a" given twice');
  });

  it('a file cut short or with any byte flipped is damage, or reads back as written (property)', () => {
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 1, max: 255 }), fc.boolean(), (at, flip, cut) => {
        const hostile = Buffer.from(file);
        const position = 20 + (at % (file.length - 20));
        hostile[position] = hostile[position]! ^ flip;
        const result = outcome(() => {
          const opened = Container.open(cut ? file.subarray(0, position) : hostile);
          return [...sections.keys()].map((name) => opened.section(name));
        });
        // Zlib's checksum finds a flip: only a cut after the last section's end could read back whole.
        if ('value' in result) expect(result.value).toEqual([...sections.values()]);
      }),
    );
  });

  /** `file` with its header replaced by `header` (sections as they are). */
  const withHeader = (header: unknown, sectionBytes = Buffer.alloc(0)): Buffer => {
    const packed = deflateSync(Buffer.from(JSON.stringify(header)));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(packed.length);
    return Buffer.concat([Buffer.from('sisu-skills-index 3\n'), length, packed, sectionBytes]);
  };

  it('refuses a header length, or a section, past the end of the file', () => {
    const length = Buffer.from(file);
    length.writeUInt32LE(file.length, 20);
    expect(outcome(() => Container.open(length))).toEqual({ damaged: `has a header of ${file.length} bytes past its end` });
    const past = withHeader({ sections: { a: { at: 0, bytes: 100, size: 10 } } }, Buffer.alloc(10));
    expect(outcome(() => Container.open(past))).toEqual({ damaged: 'section "a" lies past the file\'s end (100 of 10 bytes)' });
    expect(outcome(() => Container.open(withHeader({ sections: { a: { at: -1, bytes: 1, size: 1 } } })))).toEqual({
      damaged: 'section "a" has no place in the file',
    });
    expect(outcome(() => Container.open(withHeader([])))).toEqual({ damaged: 'header is not an object' });
    expect(outcome(() => Container.open(withHeader({})))).toEqual({ damaged: 'header has no table of sections' });
  });

  it('a decompression bomb: a claim of gigabytes is refused unread, and a stream that inflates past its claim is stopped there', () => {
    const bomb = deflateSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
    // Claims all it makes: past what this reader takes.
    const claims = withHeader({ sections: { a: { at: 0, bytes: bomb.length, size: 2 ** 32 } } }, bomb);
    expect(outcome(() => Container.open(claims))).toEqual({
      damaged: `section "a" claims ${2 ** 32} bytes inflated from ${bomb.length}, more than deflate makes or this reader takes`,
    });
    expect(MAX_INFLATED_BYTES).toBeLessThan(2 ** 32);
    // Claims 1,000 bytes and makes 64 MB: inflating stops at the claim.
    const lies = withHeader({ sections: { a: { at: 0, bytes: bomb.length, size: 1000 } } }, bomb);
    const opened = Container.open(lies);
    const result = outcome(() => opened.section('a'));
    expect('damaged' in result && result.damaged).toMatch(/^section "a" inflates past 1000 bytes/);
    // A claim larger than what the stream makes.
    const short = withHeader({ sections: { a: { at: 0, bytes: 11, size: 9 } } }, deflateSync(Buffer.from('abc')));
    expect(outcome(() => Container.open(short).section('a'))).toEqual({
      damaged: 'section "a" inflates to 3 bytes, not the 9 its header says',
    });
  });
});

describe('the ranker sections', () => {
  /** A ranker's data over `entries`, with its instructions' index, as the builder stores them. */
  async function stored(): Promise<PrebuiltRankerData> {
    const entries = [
      { name: 'pdf', description: 'Fill and merge PDF forms. Use when the user has a PDF.' },
      { name: 'deploy', description: 'Deploy services to the cloud.', tags: ['ops'] },
      { name: 'review', description: 'Review a pull request for bugs.' },
    ];
    const bodies = RANKER_BUILDER.bodies(entries.length);
    bodies.add(0, '# Forms\nFill the fields of a PDF form, then merge two PDFs.');
    bodies.add(2, '# Review\nRead the diff; look for bugs and missing tests.');
    const data: PrebuiltRankerData = { ...buildRankerData(entries), body: bodies.data()!, nameOrder: Int32Array.of(1, 0, 2) };
    return data;
  }

  it('read back as written, checked by the ranker format it is given', async () => {
    const data = await stored();
    const read = readRanker(writeRanker(data), writeBody(data.body!), 3, RANKER_FORMAT);
    if (!read.ok || !read.data?.body) throw new Error('expected the ranker and its body');
    const { body, ...ranker } = read.data;
    const { body: written, ...writtenRanker } = data;
    expect(decodedAll(ranker)).toEqual({ data: writtenRanker, damaged: [] });
    expect(decodedAll(body)).toEqual({ data: written, damaged: [] });
    // Without the body section, the ranker alone.
    const alone = readRanker(writeRanker(data), undefined, 3, RANKER_FORMAT);
    expect(alone.ok && alone.data?.body).toBeUndefined();
  });

  it('data of another scheme is left undecoded; damage is named', async () => {
    const data = await stored();
    expect(readRanker(writeRanker({ ...data, scheme: 'bm25f/0' }), undefined, 3, RANKER_FORMAT)).toEqual({
      ok: true,
      otherScheme: '"bm25f/0"',
    });
    // The instructions of another scheme: the ranker without them.
    const foreignBody = readRanker(writeRanker(data), writeBody({ ...data.body!, scheme: 'body/0' }), 3, RANKER_FORMAT);
    expect(foreignBody.ok && foreignBody.data?.body).toBeUndefined();
    expect(readRanker(writeRanker(data), undefined, 2, RANKER_FORMAT)).toEqual({
      ok: false,
      problem: 'section "ranker" has no count of the skills it ranks',
    });
    const otherCount = readRanker(writeRanker(data), writeBody({ ...data.body!, count: 4 }), 3, RANKER_FORMAT);
    expect(otherCount).toEqual({ ok: false, problem: 'section "ranker.body" is over 4 skills, the ranker over 3' });
    // A weight of 0 (no ranker writes one) is damage to the decoder, which checks every posting for the ranker.
    const zero = { ...data, weights: data.weights.map(() => 0) };
    expect(readRanker(writeRanker(zero), undefined, 3, RANKER_FORMAT)).toEqual({
      ok: false,
      problem: 'section "ranker" has a weight of 0',
    });
    const zeroBody = { ...data.body!, weights: data.body!.weights.map(() => 0) };
    expect(readRanker(writeRanker(data), writeBody(zeroBody), 3, RANKER_FORMAT)).toEqual({
      ok: false,
      problem: 'section "ranker.body" has a weight of 0',
    });
    // What the ranker still checks of decoded postings: the terms (here out of order, which decoding does not see).
    const unsorted = readRanker(writeRanker({ ...data, terms: [...data.terms].reverse() }), undefined, 3, RANKER_FORMAT);
    expect(unsorted.ok === false && unsorted.problem).toMatch(/^the ranker's postings: terms are not sorted and distinct/);
    const bodyRefused = readRanker(writeRanker(data), writeBody({ ...data.body!, rareIdf: -1 }), 3, RANKER_FORMAT);
    expect(bodyRefused).toEqual({ ok: false, problem: "the instructions' postings: the rare-term IDF is not a number of 0 or more" });
    expect(readRanker(writeRanker(data).subarray(0, 12), undefined, 3, RANKER_FORMAT).ok).toBe(false);
  });
});

describe('decodeSkills: what the skills section says, checked', () => {
  /** A skills section written field by field, as a hostile writer might. */
  function section(fields: {
    metadata?: readonly unknown[];
    parents?: readonly string[];
    parentOf?: readonly number[];
    leaves?: readonly string[];
    sizes?: readonly number[];
    files?: readonly unknown[];
    descriptions?: { kinds: number[]; lengths: number[]; narrow?: string; wide?: Buffer };
  }): SkillTable {
    const count = fields.metadata?.length ?? 1;
    const out = new ByteWriter()
      .json(fields.metadata ?? [{ name: 'a', description: 'A.' }])
      .json(fields.parents ?? ['./skills'])
      .typed(Uint32Array.from(fields.parentOf ?? [1]))
      .json(fields.leaves ?? [''])
      .typed(Float64Array.from(fields.sizes ?? Array.from({ length: count }, () => 1)))
      .typed(Float64Array.from({ length: count }, () => 2))
      .json(fields.files ?? [])
      .json([]);
    // Descriptions: left in the metadata's JSON unless given as columns.
    const columns = fields.descriptions ?? { kinds: new Array<number>(count).fill(0), lengths: new Array<number>(count).fill(0) };
    out
      .typed(Uint8Array.from(columns.kinds))
      .typed(Uint32Array.from(columns.lengths))
      .block(Buffer.from(columns.narrow ?? '', 'latin1'))
      .block(columns.wide ?? Buffer.alloc(0));
    return new SkillTable(new ByteReader(out.result(), 'test'), count);
  }
  const decode = (stored: string): string => (stored.startsWith('./') ? `/lib/${stored.slice(2)}` : stored);
  const decoded = (table: SkillTable, roots = ['/lib/skills']) => outcome(() => decodeSkills(table, decode, roots));

  it('descriptions from their columns, each in its place among its keys; columns that do not add up are damage', () => {
    const metadata = () => [
      { name: 'a', description: 0, license: 'MIT' },
      { name: 'b', description: 'Left in the JSON.' },
      { name: 'c', description: 0 },
    ];
    const wide = Buffer.from('Ça — 😀', 'utf16le');
    const good = { kinds: [1, 0, 2], lengths: [6, 0, 7], narrow: 'Fills.', wide };
    const table = section({ metadata: metadata(), parentOf: [1, 1, 1], leaves: ['', '', ''], descriptions: good });
    expect(table.metadata).toEqual([
      { name: 'a', description: 'Fills.', license: 'MIT' },
      { name: 'b', description: 'Left in the JSON.' },
      { name: 'c', description: 'Ça — 😀' },
    ]);
    expect(Object.keys(table.metadata[0]!)).toEqual(['name', 'description', 'license']);
    const hostile = (descriptions: typeof good, list: unknown[] = metadata()) =>
      outcome(() => section({ metadata: list, parentOf: [1, 1, 1], leaves: ['', '', ''], descriptions }));
    const noPlace = { damaged: "test has no place for skill 1's description" };
    expect(hostile({ ...good, kinds: [3, 0, 2] })).toEqual(noPlace);
    expect(hostile({ ...good, lengths: [6, 0, 8] })).toEqual({ damaged: "test has no place for skill 3's description" });
    expect(hostile({ ...good, narrow: 'Fills.!' })).toEqual({ damaged: 'test holds descriptions no skill has' });
    expect(hostile({ ...good, wide: wide.subarray(1) })).toEqual({ damaged: 'test holds wide descriptions of an odd number of bytes' });
    expect(hostile(good, [{ name: 'a', description: 'Not 0.' }, ...metadata().slice(1)])).toEqual(noPlace);
    expect(hostile(good, [{ name: 'a' }, ...metadata().slice(1)])).toEqual(noPlace);
    expect(hostile(good, ['a', ...metadata().slice(1)])).toEqual(noPlace);
    // A 0 left where no column fills it is a description that is no string: the reader's to refuse.
    const unfilled = decoded(section({ metadata: [{ name: 'a', description: 0 }] }));
    expect(unfilled).toEqual({ damaged: 'skill 1: its metadata has no description' });
  });

  it('a well-formed section: folders from their parents, SKILL.md beside each, its stamp', () => {
    const result = decoded(
      section({
        metadata: [
          { name: 'a', description: 'A.' },
          { name: 'b', description: 'B.' },
        ],
        parentOf: [1, 1],
        leaves: ['', 'b-dir'],
      }),
    );
    if (!('value' in result)) throw new Error(result.damaged);
    expect(result.value.skills.map((s) => [s.directory, s.path])).toEqual([
      ['/lib/skills/a', '/lib/skills/a/SKILL.md'],
      ['/lib/skills/b-dir', '/lib/skills/b-dir/SKILL.md'],
    ]);
    expect(result.value.stamps.of(result.value.skills[1]!)).toEqual({ size: 1, mtimeMs: 2 });
    // A configured folder that is itself a skill, its parent outside every configured folder.
    const root = decoded(section({}), ['/lib/skills/a']);
    expect('value' in root && root.value.skills[0]?.directory).toBe('/lib/skills/a');
    // A SKILL.md named otherwise, inside its folder.
    const named = decoded(section({ files: [[0, '/lib/skills/a/skill.md']] }));
    expect('value' in named && named.value.skills[0]?.path).toBe('/lib/skills/a/skill.md');
  });

  it.each([
    ['a parent it does not hold', { parentOf: [2] }, 'skill 1: names a parent folder the index does not hold'],
    ['a folder name that steps out', { leaves: ['..'] }, 'skill 1: its folder name is not a name'],
    ['a folder name with a slash', { leaves: ['x/y'] }, 'skill 1: its folder name is not a name'],
    ['a parent outside the folders', { parents: ['/etc'] }, 'skill 1 ("a") lies outside the configured directories'],
    ['metadata that is no object', { metadata: [[1]] }, 'skill 1: its metadata is not an object'],
    ['a size that is no size', { sizes: [1.5] }, 'skill 1: its SKILL.md size or mtime is not a number'],
    ['a SKILL.md in another folder', { files: [[0, '/lib/skills/b/SKILL.md']] }, 'skill 1: its SKILL.md lies outside its folder'],
    ['a SKILL.md up and back', { files: [[0, '/lib/skills/a/../a/SKILL.md']] }, 'skill 1: its SKILL.md lies outside its folder'],
    [
      'exceptions out of order',
      {
        files: [
          [0, 'x'],
          [0, 'y'],
        ],
      },
      'test lists SKILL.md paths it should not',
    ],
  ] as const)('refuses %s', (_, fields, message) => {
    expect(outcome(() => decodeSkills(section(fields), decode, ['/lib/skills']))).toEqual({
      damaged: message,
    });
  });
});
