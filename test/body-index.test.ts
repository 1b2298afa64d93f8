/**
 * Ranking by what a skill's instructions say: the bounded body terms
 * (src/catalog/body-terms.ts), the ranker reading them (src/catalog/rank/), and the
 * middleware indexing them in the background while requests keep being
 * answered (src/catalog/body-indexer.ts). Figures on real skills: test/relevance.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BODY_DEFAULTS, type BodyCollector } from '../src/catalog/body-terms.js';
import { indexBodies } from '../src/catalog/body-indexer.js';
import { nodeFileSystem, type SkillsFileSystem } from '../src/base/fs.js';
import { skillsMiddleware } from '../src/middleware.js';
import { buildPrebuiltIndex, parsePrebuiltIndex, serializePrebuiltIndex } from './helpers/prebuilt.js';
import type { PrebuiltIndexDocument } from '../src/index/prebuilt/format.js';
import { bodyCollectorFor, createRanker, createTunedRanker, RANK_TUNING } from '../src/catalog/rank/score.js';
import { stem } from '../src/catalog/rank/tokenize.js';
import type { SkillEntry } from '../src/base/model.js';
import { callTool, conversation, createContext, type RecordingLogger, type StackContext } from './helpers/stack.js';

/** The terms a built body index keeps for doc `doc`. */
function keptTerms(collector: BodyCollector, doc: number, candidates: readonly string[]): string[] {
  const index = collector.build();
  return candidates.filter((word) => {
    const id = index.vocabulary.idOf(stem(word));
    if (id === undefined) return false;
    for (let p = index.postings.start(id); p < index.postings.end(id); p++) if (index.postings.doc(p) === doc) return true;
    return false;
  });
}

/** Folders made by the test under way: removed after it. */
const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

/** A new temporary folder, removed after the test. */
async function tempRoot(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'body-index-'));
  roots.push(folder);
  return folder;
}

/** `<root>/<name>/SKILL.md` with that name, description and body. */
async function writeSkill(root: string, name: string, description: string, body: string): Promise<void> {
  await mkdir(join(root, name), { recursive: true });
  await writeFile(join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`);
}

describe('body terms', () => {
  it('keeps per skill the terms that set it apart: frequent in it, rare in the library', () => {
    const collector = bodyCollectorFor(3, { ...BODY_DEFAULTS, terms: 2 });
    const common = 'file step run '.repeat(5);
    collector.add(0, `${common} goroutine goroutine channel`);
    collector.add(1, `${common} invoice`);
    collector.add(2, `${common} ledger`);
    expect(collector.count).toBe(3);
    expect(keptTerms(collector, 0, ['goroutine', 'channel', 'file', 'step', 'run'])).toEqual(['goroutine', 'channel']);
  });

  it('by default keeps up to 256 terms of a body, each at BM25 weight', () => {
    const collector = bodyCollectorFor(2);
    const many = Array.from({ length: 250 }, (_, i) => `term${i}x`);
    collector.add(0, `${many.join('\n')}\ncommon`);
    collector.add(1, 'common');
    const index = collector.build();
    expect(index.postings.end(index.terms.length - 1)).toBe(many.length + 2);
    // "common" is in both bodies, once each: the longer body's weight is the lower (b > 0), both under 1 (saturated).
    const common = index.vocabulary.idOf('common') ?? -1;
    const [long, short] = [index.postings.weight(index.postings.start(common)), index.postings.weight(index.postings.start(common) + 1)];
    expect(long).toBeLessThan(short);
    expect(short).toBeLessThan(1);
  });

  it('reads headings at their weight, skips fenced code, and stops at the word budget', () => {
    const collector = bodyCollectorFor(2, { ...BODY_DEFAULTS, words: 5 });
    collector.add(0, '# Rollback plan\n\n```sh\nkubectl rollout undo\n```\none two three four five six seven\n## Canary');
    collector.add(1, 'other words entirely');
    const kept = keptTerms(collector, 0, ['rollback', 'plan', 'kubectl', 'one', 'five', 'six', 'canary']);
    // Headings count past the budget's words only up to where reading stopped: "Canary" comes after.
    expect(kept).toEqual(['rollback', 'plan', 'one', 'five']);
  });

  it('builds in steps a vocabulary sorted by code unit, each term finding its own postings, past one sorting run', () => {
    // 100 skills x 30 distinct words: more terms than one sorting run (2,048) and than one step of skills (16).
    const collector = bodyCollectorFor(100);
    const wordOf = (doc: number, i: number): string => `w${((doc * 7919 + i * 104729) % 1_000_003).toString(36)}z`;
    for (let doc = 0; doc < 100; doc++) collector.add(doc, Array.from({ length: 30 }, (_, i) => wordOf(doc, i)).join(' '));
    const steps = collector.buildSteps();
    let step = steps.next();
    let count = 1;
    for (; !step.done; count++) step = steps.next();
    const index = step.value;
    expect(count).toBeGreaterThan(5);
    expect(index.terms.length).toBe(3_000);
    expect(index.terms).toEqual([...index.terms].sort());
    for (const doc of [0, 57, 99]) {
      const id = index.vocabulary.idOf(stem(wordOf(doc, 3))) ?? -1;
      expect(index.postings.doc(index.postings.start(id))).toBe(doc);
    }
  });

  it('ignores a second body for the same skill, and skills out of range', () => {
    const collector = bodyCollectorFor(1);
    collector.add(0, 'alpha');
    collector.add(0, 'beta');
    collector.add(5, 'gamma');
    collector.add(-1, 'delta');
    expect(collector.count).toBe(1);
    expect(keptTerms(collector, 0, ['alpha', 'beta', 'gamma', 'delta'])).toEqual(['alpha']);
  });

  it('builds once: it lets go of each body as the build uses it, so a second build or a body after it is refused', () => {
    const collector = bodyCollectorFor(2);
    collector.add(0, 'alpha beta');
    collector.add(1, 'beta gamma');
    const index = collector.build();
    expect(index.read).toBe(2);
    expect(index.vocabulary.idOf('alpha')).toBeDefined();
    expect(() => collector.build()).toThrow('a body collector builds its index once');
    expect(() => collector.add(1, 'delta')).toThrow('a body collector takes no body once its index is built');
  });
});

describe('a ranker that reads the instructions', () => {
  const entries = [
    { name: 'release', description: 'Ships a tagged version to customers.' },
    { name: 'rollback', description: 'Undoes a bad deploy when a canary fails.' },
    { name: 'notes', description: 'Writes meeting notes.' },
  ];
  const bodies = ['## Canary stages\n\nWatch the canary, then promote. Canary metrics decide.', undefined, 'Summaries of calls.'];

  it('finds a skill by a word only its instructions use, and weighs the instructions at bodyWeight', () => {
    const plain = createRanker(entries);
    expect(plain.bodyAware).toBe(false);
    expect(plain.rank('promote the build').map((r) => r.name)).toEqual([]);
    const ranker = createRanker(entries, bodies);
    expect(ranker.bodyAware).toBe(true);
    expect(ranker.rank('promote the build').map((r) => r.name)).toEqual(['release']);
    // "canary" is once in rollback's description and four times in release's instructions: at 1.25 times a
    // description term's weight the instructions that dwell on it win; at 0.5 the description does.
    expect(ranker.rank('canary').map((r) => r.name)).toEqual(['release', 'rollback']);
    const light = createTunedRanker(entries, { ...RANK_TUNING, bodyWeight: 0.5 }, bodies);
    expect(light.rank('canary').map((r) => r.name)).toEqual(['rollback', 'release']);
    for (const { score } of ranker.rank('canary promote summaries calls')) {
      expect(score).toBeGreaterThan(0);
      expect(score).toBeLessThan(1);
    }
  });

  it('switches to the instructions when they arrive, bumping its version, and says which words they hold', () => {
    const ranker = createRanker(entries);
    expect(ranker.rank('ships customers')[0]?.name).toBe('release');
    expect(ranker.instructionsHold('release', ['promot'])).toEqual([]);
    const collector = ranker.bodyCollector();
    bodies.forEach((body, doc) => body !== undefined && collector.add(doc, body));
    const before = ranker.version;
    ranker.useBodies(collector.build());
    expect(ranker.version).toBe(before + 1);
    expect(ranker.rank('promote')[0]?.name).toBe('release');
    expect(ranker.instructionsHold('release', ['promot', 'summary', 'zzz'])).toEqual(['promot']);
    expect(ranker.instructionsHold('nobody', ['promot'])).toEqual([]);
    expect(() => ranker.useBodies(bodyCollectorFor(1).build())).toThrow(/a body index of 1 skills for a ranker of 3/);
  });

  it('a body weight of 0 ranks as the description-only ranker does', () => {
    const zero = createTunedRanker(entries, { ...RANK_TUNING, bodyWeight: 0 }, bodies);
    const plain = createRanker(entries);
    for (const query of ['canary', 'ships customers', 'meeting notes']) expect(zero.rank(query)).toEqual(plain.rank(query));
  });
});

function entry(name: string, path: string, instructions?: string): SkillEntry {
  return { metadata: { name, description: `Helps with ${name}.` }, path, directory: path.replace(/\/SKILL\.md$/, ''), ...{ instructions } };
}

describe('indexBodies', () => {
  it('reads each body once, skips what it cannot read (saying why), and hands the ranker the rest', async () => {
    const files = new Map([
      ['/s/a/SKILL.md', '---\nname: a\ndescription: x\n---\n# Canary checks\n'],
      ['/s/c/SKILL.md', '---\nname: c\ndescription: x\n---\nledger reconciliation'],
    ]);
    const reads: string[] = [];
    const fs: SkillsFileSystem = {
      ...nodeFileSystem,
      readFile: async (path) => {
        reads.push(path);
        const text = files.get(path);
        if (text === undefined) throw Object.assign(new Error('ENOENT: gone'), { code: 'ENOENT' });
        return text;
      },
    };
    const skills = [
      entry('a', '/s/a/SKILL.md'),
      entry('b', '/s/b/SKILL.md'),
      entry('c', '/s/c/SKILL.md'),
      entry('d', '/s/d/SKILL.md', 'quarterly taxes'),
    ];
    const ranker = createRanker(skills.map((s) => s.metadata));
    const indexing = indexBodies({ skills, ranker: () => ranker, fs, delayMs: 60_000 });
    expect(indexing.outcome).toBeUndefined();
    indexing.start();
    await indexing.done;
    expect(reads.sort()).toEqual(['/s/a/SKILL.md', '/s/b/SKILL.md', '/s/c/SKILL.md']);
    expect(indexing.outcome).toEqual({
      from: 'files',
      read: 3,
      skipped: 1,
      examples: [{ skill: 'b', path: '/s/b/SKILL.md', reason: 'it does not exist' }],
    });
    expect(ranker.rank('canary')[0]?.name).toBe('a');
    expect(ranker.rank('reconciliation')[0]?.name).toBe('c');
    expect(ranker.rank('taxes')[0]?.name).toBe('d');
  });

  it('stopped, it reads nothing more and leaves the ranker as it was', async () => {
    const ranker = createRanker([{ name: 'a', description: 'x' }]);
    let reads = 0;
    const fs: SkillsFileSystem = { ...nodeFileSystem, readFile: async () => (reads++, 'body') };
    const indexing = indexBodies({ skills: [entry('a', '/s/a/SKILL.md')], ranker: () => ranker, fs, delayMs: 60_000 });
    indexing.stop();
    indexing.start();
    await indexing.done;
    expect(reads).toBe(0);
    expect(ranker.bodyAware).toBe(false);
    expect(indexing.outcome).toBeUndefined();
  });
});

describe('the middleware ranks by the instructions once they are indexed, answering requests meanwhile', () => {
  it('answers every request while the bodies are read, then finds a skill by its instructions', async () => {
    const root = await tempRoot();
    const write = (name: string, description: string, body: string): Promise<void> => writeSkill(root, name, description, body);
    for (let i = 0; i < 40; i++) await write(`task-${String(i).padStart(2, '0')}`, `Helps with chore number ${i}.`, 'Do the chore.');
    await write('release', 'Ships a tagged version to customers.', '## Canary stages\n\nWatch the canary, then promote it.');

    // After the first request, body reads wait until the gate opens.
    let gated = false;
    let waiting = 0;
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const fs: SkillsFileSystem = {
      ...nodeFileSystem,
      readFile: async (path, encoding) => {
        if (gated) {
          waiting++;
          await gate;
        }
        return nodeFileSystem.readFile(path, encoding);
      },
    };
    const middleware = skillsMiddleware({ directories: [root], fs, catalogBudget: 700, findSkills: true });
    const request = async (text: string): Promise<StackContext> => {
      const ctx = createContext({ messages: conversation(text) });
      let reached = false;
      await middleware(ctx as never, async () => {
        reached = true;
      });
      expect(reached).toBe(true);
      return ctx;
    };

    await request('hello');
    gated = true;
    const ranked = middleware.instructionsRanked();
    let settled = false;
    void ranked.then(() => (settled = true));
    // The body reads start and hang.
    await vi.waitFor(() => expect(waiting).toBeGreaterThan(0));
    // Requests while the body reads hang: each is answered, ranked by the metadata.
    for (let i = 0; i < 20; i++) {
      const ctx = await request('watch the canary before we promote');
      expect(await callTool(ctx, 'find_skills', { query: 'canary promote' })).toMatch(/^No skills match/);
    }
    expect(waiting).toBeGreaterThan(0);
    expect(settled).toBe(false);

    open();
    await ranked;
    const ctx = await request('watch the canary before we promote');
    const found = await callTool(ctx, 'find_skills', { query: 'canary promote' });
    expect(found).toMatch(/\n- release: Ships a tagged version to customers\. \(matched "canary", "promote" in the instructions\)/);
    const system = String(ctx.messages[0]?.content);
    expect(system).toMatch(/most relevant to this request[^\n]*\n- release:/);
    expect((ctx.log as RecordingLogger).find('[skills] ranking reads the instructions')).toEqual([
      { level: 'info', args: ['[skills] ranking reads the instructions', { from: 'files', read: 41, skipped: 0, examples: [] }] },
    ]);
  });

  /** One skill whose "canary" is in its instructions only, and a file system that counts its reads. */
  async function canaryLibrary(): Promise<{ root: string; fs: SkillsFileSystem; reads: () => number }> {
    const root = await tempRoot();
    await writeSkill(root, 'release', 'Ships versions.', 'Canary.');
    let count = 0;
    const fs: SkillsFileSystem = {
      ...nodeFileSystem,
      readFile: async (path, encoding) => (count++, nodeFileSystem.readFile(path, encoding)),
    };
    return { root, fs, reads: () => count };
  }

  it('close() stops the reading: no SKILL.md is read for ranking afterwards', async () => {
    const { root, fs, reads } = await canaryLibrary();
    const middleware = skillsMiddleware({ directories: [root], fs, findSkills: true });
    const ctx = createContext({ messages: conversation('hello') });
    await middleware(ctx as never, async () => {});
    const before = reads();
    await middleware.close();
    await middleware.instructionsRanked();
    expect(reads()).toBe(before);
    expect(await callTool(ctx, 'find_skills', { query: 'canary' })).toMatch(/^No skills match/);
  });

  it('with rankInstructions: false reads no SKILL.md for ranking', async () => {
    const { root, fs, reads } = await canaryLibrary();
    const middleware = skillsMiddleware({ directories: [root], fs, findSkills: true, rankInstructions: false });
    const ctx = createContext({ messages: conversation('hello') });
    await middleware(ctx as never, async () => {});
    const before = reads();
    await middleware.instructionsRanked();
    expect(reads()).toBe(before);
    expect(await callTool(ctx, 'find_skills', { query: 'canary' })).toMatch(/^No skills match/);
  });
});

describe('a prebuilt index built with the instructions', () => {
  /** A library of 30 skills, one of which says "canary" only in its instructions, and its index file. */
  async function library(): Promise<{ dir: string; file: string; document: PrebuiltIndexDocument }> {
    const root = await tempRoot();
    const dir = join(root, 'skills');
    for (let i = 0; i < 30; i++) {
      const name = i === 0 ? 'release' : `task-${String(i).padStart(2, '0')}`;
      await writeSkill(
        dir,
        name,
        `Helps with ${name}.`,
        i === 0 ? '## Canary stages\n\nWatch the canary, then promote it.' : 'Do the chore.',
      );
    }
    const file = join(root, 'skills.index');
    const document = await buildPrebuiltIndex({ directories: [dir] }, file, undefined, { instructions: true });
    expect((await buildPrebuiltIndex({ directories: [dir] }, file)).ranker.body).toBeUndefined();
    await writeFile(file, serializePrebuiltIndex(document));
    return { dir, file, document };
  }

  /** A middleware over `dir` from `file`, counting the SKILL.md bodies it reads after its first request. */
  async function started(dir: string, file: string, rankInstructions = true): Promise<{ ctx: StackContext; reads: () => number }> {
    let reads = 0;
    const fs: SkillsFileSystem = {
      ...nodeFileSystem,
      readFile: async (path, encoding) => (path.endsWith('SKILL.md') && reads++, nodeFileSystem.readFile(path, encoding)),
    };
    const middleware = skillsMiddleware({ directories: [dir], index: file, fs, findSkills: true, rankInstructions });
    const ctx = createContext({ messages: conversation('hello') });
    await middleware(ctx as never, async () => {});
    await middleware.instructionsRanked();
    return { ctx, reads: () => reads };
  }

  it('ranks by them from the first request, reading no SKILL.md', async () => {
    const { dir, file, document } = await library();
    expect(document.ranker.body).toMatchObject({ count: 30, read: 30 });
    const { ctx, reads } = await started(dir, file);
    expect(await callTool(ctx, 'find_skills', { query: 'canary' })).toMatch(/\n- release: .*\(matched "canary" in the instructions\)/);
    expect(reads()).toBe(0);
    expect((ctx.log as RecordingLogger).find('[skills] ranking reads the instructions')).toEqual([
      { level: 'info', args: ['[skills] ranking reads the instructions', { from: 'index', read: 30, skipped: 0, examples: [] }] },
    ]);
  });

  it('with rankInstructions: false, does not use them', async () => {
    const { dir, file } = await library();
    const { ctx } = await started(dir, file, false);
    expect(await callTool(ctx, 'find_skills', { query: 'canary' })).toMatch(/^No skills match/);
  });

  it('reads the bodies instead when the stored ones are of another scheme, and refuses damaged ones', async () => {
    const { dir, file, document } = await library();
    const foreign = structuredClone(document);
    foreign.ranker.body!.scheme = 'body/0';
    await writeFile(file, serializePrebuiltIndex(foreign));
    const { ctx, reads } = await started(dir, file);
    expect(reads()).toBe(30);
    expect(await callTool(ctx, 'find_skills', { query: 'canary' })).toMatch(/\n- release: /);
    const damaged = structuredClone(document);
    const stored = damaged.ranker.body!;
    const idf = new Float32Array(stored.terms.length).fill(1);
    idf[0] = Number.NaN;
    stored.idf = idf;
    await writeFile(file, serializePrebuiltIndex(damaged));
    const read = parsePrebuiltIndex(serializePrebuiltIndex(damaged), file, {
      directories: [dir],
      packages: [],
      include: [],
      exclude: [],
      strict: false,
    });
    expect(read).toMatchObject({
      ok: false,
      reason: 'malformed',
      message: expect.stringMatching(/the instructions' postings: an IDF is not a number of 0 or more/),
    });
  });
});

describe('visible parts of an index and the instructions', () => {
  it('every tenant ranks by the instructions, read once for the whole index, and sees only its own skills', async () => {
    const root = await tempRoot();
    // Two skills say "canary" only in their instructions; each tenant sees one of them.
    const tenantOf = (name: string): string => (name.startsWith('alpha-') ? 'a' : name.startsWith('beta-') ? 'b' : 'both');
    const names = ['alpha-release', 'beta-release', ...Array.from({ length: 20 }, (_, i) => `task-${String(i).padStart(2, '0')}`)];
    for (const name of names) {
      const body = name.endsWith('-release') ? '## Canary stages\n\nWatch the canary, then promote it.' : 'Do the chore.';
      await writeSkill(root, name, `Helps with ${name}.`, body);
    }
    let bodyReads = 0;
    let started = false;
    const fs: SkillsFileSystem = {
      ...nodeFileSystem,
      readFile: async (path, encoding) => (started && path.endsWith('SKILL.md') && bodyReads++, nodeFileSystem.readFile(path, encoding)),
    };
    const middleware = skillsMiddleware({
      directories: [root],
      fs,
      findSkills: true,
      visible: (skill, ctx) => ['both', (ctx.state as { tenant?: string }).tenant].includes(tenantOf(skill.metadata.name)),
    });
    const request = async (tenant: string): Promise<StackContext> => {
      const ctx = createContext({ messages: conversation('hello') });
      ctx.state.tenant = tenant;
      await middleware(ctx as never, async () => {});
      return ctx;
    };
    await request('a');
    await request('b');
    started = true;
    await middleware.instructionsRanked();
    // Read once, for the whole index: not again for each visible part.
    expect(bodyReads).toBe(names.length);
    const a = await callTool(await request('a'), 'find_skills', { query: 'canary' });
    const b = await callTool(await request('b'), 'find_skills', { query: 'canary' });
    expect(a).toMatch(/\n- alpha-release: .*\(matched "canary" in the instructions\)/);
    expect(a).not.toContain('beta-release');
    expect(b).toMatch(/\n- beta-release: .*\(matched "canary" in the instructions\)/);
    expect(b).not.toContain('alpha-release');
    expect(bodyReads).toBe(names.length);
  });
});
