/**
 * The prebuilt index carries the ranker: a middleware started from the index
 * ranks with the stored postings (nothing tokenised), and its catalog and
 * find_skills answers are the same as a scan's, on the shared corpus and on
 * generated libraries. An index of format 1 (no ranker) still loads, and a
 * ranker of another scheme is left out, not trusted.
 */
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEntries } from '../src/catalog/catalog.js';
import type { FileStats, SkillsFileSystem } from '../src/base/fs.js';
import { skillsMiddleware } from '../src/index.js';
import { buildPrebuiltIndex, parsePrebuiltIndex, prebuiltIndexFrom, serializePrebuiltIndex } from './helpers/prebuilt.js';
import { PREBUILT_INDEX_VERSION, rankedSkills, type PrebuiltIndexDocument } from '../src/index/prebuilt/format.js';
import { Container, writeContainer } from '../src/index/prebuilt/codec-container.js';
import { createRanker } from '../src/catalog/rank/score.js';
import { rankerFromData } from '../src/catalog/rank/data.js';
import type { SkillEntry, SkillMetadata } from '../src/base/model.js';
import { callTool, conversation, createContext } from './helpers/stack.js';
import { QUERIES } from './relevance/queries.mjs';
import { describeWith } from './helpers/needs-shared.js';
import { CORPUS } from './helpers/shared.js';

let temp: string;
beforeAll(async () => {
  temp = await realpath(await mkdtemp(join(tmpdir(), 'skills-ranker-')));
});
afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

/** What one first request shows the model: the system prompt (with the catalog) and find_skills' answer to `query`. */
async function answers(middleware: ReturnType<typeof skillsMiddleware>, query: string): Promise<{ system: string; found: string }> {
  const ctx = createContext({ messages: conversation(query) });
  await middleware(ctx, async () => {});
  // Never a fallback to a scan: that would compare a scan with itself.
  expect(JSON.stringify(ctx.log.entries)).not.toContain('INDEX_UNUSABLE');
  const system = String(ctx.messages.find((message) => message.role === 'system')?.content ?? '');
  const found = ctx.tools.get('find_skills') ? await callTool(ctx, 'find_skills', { query, limit: 20 }) : '';
  return { system, found };
}

async function writeIndex(document: PrebuiltIndexDocument, file: string): Promise<void> {
  await writeFile(file, serializePrebuiltIndex(document));
}

describeWith('corpus', 'on the shared corpus', () => {
  const requests = [...QUERIES.map((q) => q.query), 'convert a pdf to markdown', 'hello', 'review my pull request'];
  let indexFile: string;
  let document: PrebuiltIndexDocument;

  beforeAll(async () => {
    indexFile = join(temp, 'corpus.index');
    document = await buildPrebuiltIndex({ directories: [CORPUS] }, indexFile);
    await writeIndex(document, indexFile);
  });

  // Ranking by metadata (the instructions not read), then once both have read the instructions.
  it.each([false, true])(
    'the catalog and find_skills say the same from the index as from a scan, for every labeled request (instructions ranked: %s)',
    async (instructions) => {
      const scan = skillsMiddleware({ directories: [CORPUS], rankInstructions: instructions });
      const fromIndex = skillsMiddleware({ directories: [CORPUS], index: indexFile, rankInstructions: instructions });
      expect(document.ranker.count).toBeGreaterThan(1000);
      if (instructions) {
        await answers(scan, 'hello');
        await answers(fromIndex, 'hello');
        await Promise.all([scan.instructionsRanked(), fromIndex.instructionsRanked()]);
      }
      let ranked = 0;
      for (const request of requests) {
        const expected = await answers(scan, request);
        const actual = await answers(fromIndex, request);
        expect(actual, request).toEqual(expected);
        if (expected.found.startsWith('Skills matching')) ranked++;
      }
      // The comparison means something only if the requests were ranked.
      expect(ranked).toBeGreaterThan(requests.length - 5);
    },
    // Both middlewares read the corpus's 1,129 instructions: 3 s alone, past the default 20 s in the whole suite at load 16.
    60_000,
  );

  it('ranks with the stored postings: a stored ranker altered (validly) changes the answers', async () => {
    const altered = structuredClone(document);
    // Every weight the smallest there is: scores become sums of IDF alone.
    altered.ranker.weights.fill(1);
    const file = join(temp, 'altered.index');
    await writeIndex(altered, file);
    const scan = skillsMiddleware({ directories: [CORPUS], rankInstructions: false });
    const fromAltered = skillsMiddleware({ directories: [CORPUS], index: file, rankInstructions: false });
    const request = 'fill in the fields of this PDF form and merge two PDFs';
    expect((await answers(fromAltered, request)).found).not.toEqual((await answers(scan, request)).found);
  });
});

describe('older and foreign rankers', () => {
  let skills: string;
  let indexFile: string;
  let document: PrebuiltIndexDocument;
  const md = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`;
  /** The index file at `file` read for this library, as start-up reads it. */
  const readIndexFile = async (file: string) =>
    parsePrebuiltIndex(await readFile(file), file, {
      directories: [skills],
      packages: [],
      include: [],
      exclude: [],
      strict: false,
    });

  beforeAll(async () => {
    skills = join(temp, 'small', 'skills');
    const descriptions: Record<string, string> = {
      pdf: 'Fill, merge and convert PDF files. Use when the user has a PDF.',
      markdown: 'Write and convert documents to Markdown.',
      review: 'Review a pull request for bugs. Use when asked to review code.',
    };
    for (let i = 0; i < 60; i++) descriptions[`filler-${i}`] = `Handles task number ${i} about topic ${i % 7} and more words.`;
    for (const [name, description] of Object.entries(descriptions)) {
      await mkdir(join(skills, name), { recursive: true });
      await writeFile(join(skills, name, 'SKILL.md'), md(name, description));
    }
    indexFile = join(temp, 'small', 'skills.index');
    document = await buildPrebuiltIndex({ directories: [skills] }, indexFile);
  });

  it('an index without the ranker section still loads, and ranks as a scan does', async () => {
    expect(document.ranker.count).toBe(63);
    const older = join(temp, 'small', 'no-ranker.index');
    const container = Container.open(serializePrebuiltIndex(document));
    const { sections: _table, ...header } = container.header;
    const sections = new Map(container.names().flatMap((name) => (name === 'ranker' ? [] : [[name, container.section(name)!] as const])));
    await writeFile(older, writeContainer({ version: PREBUILT_INDEX_VERSION, header, sections, level: 6 }));
    const read = await readIndexFile(older);
    if (!read.ok) throw new Error(read.message);
    expect(read.result.ranker).toBeUndefined();
    expect(read.result.skills).toHaveLength(63);
    const scan = skillsMiddleware({ directories: [skills], catalogBudget: 600 });
    const fromOlder = skillsMiddleware({ directories: [skills], index: older, catalogBudget: 600 });
    for (const request of ['convert a pdf to markdown', 'review this code', 'topic 3']) {
      expect(await answers(fromOlder, request)).toEqual(await answers(scan, request));
    }
  });

  it('stores the ranked skills sorted by name; an index without that order, or with a wrong one, answers the same', async () => {
    const order = [...document.ranker.nameOrder!];
    const names = rankedSkills(document.skills.map(({ metadata }) => ({ metadata, path: '', directory: '' }))).map(
      (entry) => entry.metadata.name,
    );
    expect(order.map((doc) => names[doc])).toEqual([...names].sort());
    const scan = skillsMiddleware({ directories: [skills], catalogBudget: 600 });
    const reversed = Int32Array.from(order).reverse();
    // The order is checked where it is used: a wrong one (reversed) or none is sorted again, with the same answers.
    for (const [label, nameOrder] of [
      ['stored', document.ranker.nameOrder],
      ['reversed', reversed],
      ['none', undefined],
    ] as const) {
      const file = join(temp, 'small', `order-${label}.index`);
      await writeIndex({ ...document, ranker: { ...document.ranker, nameOrder } }, file);
      const fromIndex = skillsMiddleware({ directories: [skills], index: file, catalogBudget: 600 });
      for (const request of ['convert a pdf to markdown', 'review this code', 'topic 3']) {
        expect(await answers(fromIndex, request), `${label}: ${request}`).toEqual(await answers(scan, request));
      }
    }
  });

  it('a name order that is not one int32 per ranked skill makes the index unusable, with a diagnostic', async () => {
    for (const nameOrder of [Int32Array.of(0), new Int32Array(64), new Int32Array(62)]) {
      const file = join(temp, 'small', 'bad-order.index');
      await writeIndex({ ...document, ranker: { ...document.ranker, nameOrder } }, file);
      const read = await readIndexFile(file);
      expect(read.ok).toBe(false);
      if (!read.ok) {
        expect(read.reason).toBe('malformed');
        expect(read.diagnostic.code).toBe('INDEX_UNUSABLE');
        expect(read.message).toContain('section "ranker" has a name order');
      }
    }
  });

  it('a ranker of another scheme is left out: the index loads, and ranking is built from the skills', async () => {
    const foreign = structuredClone(document);
    foreign.ranker.scheme = 'bm25f/0 something else';
    // Data of another scheme is not decoded: whatever it holds, the index serves.
    foreign.ranker.weights = new Uint16Array(0);
    const file = join(temp, 'small', 'foreign.index');
    await writeIndex(foreign, file);
    const read = await readIndexFile(file);
    if (!read.ok) throw new Error(read.message);
    expect(read.result.ranker).toBeUndefined();
    // Said once, with what to do: the index serves, but without its ranking data until it is rebuilt.
    const outdated = read.result.warnings.filter((d) => d.code === 'INDEX_RANKER_OUTDATED');
    expect(outdated).toHaveLength(1);
    expect(outdated[0]).toMatchObject({ severity: 'warning', file: await realpath(file) });
    expect(outdated[0]?.message).toContain('"bm25f/0 something else"');
    expect(outdated[0]?.message).toContain('sisu-skills index');
    const scan = skillsMiddleware({ directories: [skills], catalogBudget: 600 });
    const fromForeign = skillsMiddleware({ directories: [skills], index: file, catalogBudget: 600 });
    expect(await answers(fromForeign, 'convert a pdf to markdown')).toEqual(await answers(scan, 'convert a pdf to markdown'));
  });
});

describe('on generated libraries', () => {
  const word = fc.constantFrom(
    'pdf',
    'PDFs',
    'convert',
    'converting',
    'markdown',
    'review',
    'reviews',
    'the',
    'Use',
    'when',
    'déboguer',
    'ΣΟΦΙΑ',
    'İstanbul',
    '𝐀𝐁',
    'x2',
    'policies',
    'deploy',
    'deployed',
    'k8s',
    'data',
  );
  const text = fc.array(word, { minLength: 1, maxLength: 12 }).map((words) => words.join(' '));
  const skill = fc.record({
    name: fc.constantFrom('a', 'b', 'c', 'pdf', 'md', 'rev', 'dep', 'x', 'y', 'z'),
    description: fc.oneof(
      text,
      text.map((t) => `${t}. Use when ${t}.`),
    ),
    tags: fc.option(fc.array(fc.oneof(word, fc.integer() as fc.Arbitrary<unknown> as fc.Arbitrary<string>), { maxLength: 3 }), {
      nil: undefined,
    }),
    hidden: fc.boolean(),
  });
  const statFs = {
    stat: async () => ({ size: 1, mtimeMs: 1, isFile: () => true, isDirectory: () => false, isSymbolicLink: () => false }) as FileStats,
  } as unknown as SkillsFileSystem;
  const root = `${sep}lib`;

  it('the stored ranker, written and read back, ranks every query exactly as one built from the skills', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(skill, { maxLength: 25 }), fc.array(text, { minLength: 1, maxLength: 5 }), async (generated, queries) => {
        const entries: SkillEntry[] = generated.map((g, i) => {
          const metadata: SkillMetadata = { name: g.name, description: g.description };
          if (g.tags) (metadata as Record<string, unknown>).tags = g.tags;
          if (g.hidden) (metadata as Record<string, unknown>)['disable-model-invocation'] = true;
          const directory = `${root}${sep}${i}`;
          return { metadata, directory, path: `${directory}${sep}SKILL.md` };
        });
        const shape = { directories: [root], packages: [], include: [], exclude: [], strict: false };
        const document = await prebuiltIndexFrom(
          { skills: entries, errors: [], warnings: [], scannedDirectories: [root] },
          { ...shape, fs: statFs },
          `${root}${sep}skills.index`,
          new Date(0),
        );
        const read = parsePrebuiltIndex(serializePrebuiltIndex(document), `${root}${sep}skills.index`, shape);
        if (!read.ok) throw new Error(read.message);
        const ranked = rankedSkills(read.result.skills);
        const data = read.result.ranker;
        if (!data) throw new Error('the index holds no ranker');
        const stored = rankerFromData(
          ranked.map((entry) => entry.metadata.name),
          data,
        );
        const built = createRanker(catalogEntries(ranked));
        for (const query of queries) expect(stored.rank(query)).toEqual(built.rank(query));
      }),
      { numRuns: 150 },
    );
  });

  it('loads an index whose skills lie under 500 configured folders', async () => {
    const folders = Array.from({ length: 500 }, (_, i) => `${root}${sep}team-${i}`);
    const entries: SkillEntry[] = folders.map((folder, i) => ({
      metadata: { name: `skill-${i}`, description: `Does task ${i}.` },
      directory: `${folder}${sep}skill-${i}`,
      path: `${folder}${sep}skill-${i}${sep}SKILL.md`,
    }));
    const shape = { directories: folders, packages: [], include: [], exclude: [], strict: false };
    const document = await prebuiltIndexFrom(
      { skills: entries, errors: [], warnings: [], scannedDirectories: folders },
      { ...shape, fs: statFs },
      `${root}${sep}skills.index`,
      new Date(0),
    );
    const read = parsePrebuiltIndex(serializePrebuiltIndex(document), `${root}${sep}skills.index`, shape);
    if (!read.ok) throw new Error(read.message);
    expect(read.result.skills.map((s) => s.directory)).toEqual(entries.map((e) => e.directory));
    expect(read.result.ranker?.count).toBe(500);
  });
});
