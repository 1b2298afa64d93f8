/**
 * One loaded index: it says where it came from, carries what a prebuilt index
 * held beside the skills (stamps, the ranker's data, the vectors), builds its
 * library once and owns it with its visible parts' libraries; a run holds the
 * library it sees and owns its tools. Nothing about an index or a run is kept
 * beside them.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFileSystem } from '../src/base/fs.js';
import { resolveOptions } from '../src/config/resolve.js';
import { discover } from '../src/discover/discover.js';
import { createLazySkillIndex, createSkillIndex } from '../src/index/skill-index.js';
import { originOf, type SkillsLoad } from '../src/index/skills-load.js';
import { ActivationGate } from '../src/run/gate.js';
import { Libraries } from '../src/run/library.js';
import { PluginRoots } from '../src/run/plugin-root.js';
import { RunToolbox } from '../src/run/run-tools.js';
import { SkillsRun } from '../src/run/run.js';
import { KEPT_VISIBLE_SETS, loadedIndexOf } from '../src/runtime/loaded-index.js';
import { cleanup, makeTempTree, skillMd } from './discover/helpers.js';
import { buildPrebuiltIndex, readPrebuiltIndex, serializePrebuiltIndex } from './helpers/prebuilt.js';
import { createContext } from './helpers/stack.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map(cleanup));
});

async function library(): Promise<{ root: string; skills: string }> {
  const root = await makeTempTree({});
  roots.push(root);
  const skills = join(root, 'skills');
  for (const name of ['alpha', 'beta', 'gamma']) {
    await mkdir(join(skills, name), { recursive: true });
    await writeFile(join(skills, name, 'SKILL.md'), skillMd(name));
  }
  return { root, skills };
}

const noEntryLoader = async (): Promise<never> => {
  throw new Error('not loaded in this test');
};

describe('a loaded index', () => {
  it('after a scan: says so, and carries no stamps, ranker data or vectors', async () => {
    const { skills } = await library();
    const options = resolveOptions({ directories: [skills] });
    const discovery = await discover(options, { frontmatterOnly: true });
    const load: SkillsLoad = { from: 'scan', read: 'frontmatter', discovery };
    const loaded = loadedIndexOf(load, createLazySkillIndex(discovery, noEntryLoader), 12, new Libraries(options));
    expect(loaded.origin).toEqual({ kind: 'scan' });
    expect(loaded.durationMs).toBe(12);
    expect([loaded.stamps, loaded.ranker, loaded.vectors]).toEqual([undefined, undefined, undefined]);
  });

  it('from an index file: its place, build date and version, stamps and ranker data', async () => {
    const { root, skills } = await library();
    const indexFile = join(root, 'skills.index');
    const document = await buildPrebuiltIndex({ directories: [skills] }, indexFile, () => new Date('2026-03-04T05:06:07.000Z'));
    await writeFile(indexFile, serializePrebuiltIndex(document));
    const options = resolveOptions({ directories: [skills], index: indexFile });
    const read = await readPrebuiltIndex(indexFile, { ...options, fs: nodeFileSystem });
    if (!read.ok) throw new Error(read.message);
    const load: SkillsLoad = { from: 'prebuilt', read: 'frontmatter', discovery: read.result };
    const loaded = loadedIndexOf(load, createLazySkillIndex(read.result, noEntryLoader), 3, new Libraries(options));
    expect(loaded.origin).toEqual({
      kind: 'prebuilt',
      location: indexFile,
      createdAt: '2026-03-04T05:06:07.000Z',
      packageVersion: document.packageVersion,
    });
    expect(loaded.stamps).toBe(read.result.stamps);
    expect(loaded.ranker?.count).toBe(3);
    // The library ranks with the index's ranker data, in the index's name order.
    expect(loaded.library.ranker().rank('gamma things', 1)[0]?.name).toBe('gamma');
  });

  it('from an index object in a bucket: its URL', () => {
    const discovery = { skills: [], scannedDirectories: [], errors: [], warnings: [] };
    const stamps = { of: () => undefined };
    const published = {
      ...discovery,
      stamps,
      file: 's3://b/skills.index',
      createdAt: 'then',
      packageVersion: '9.9.9',
      section: () => undefined,
    };
    expect(originOf({ from: 'published', read: 'frontmatter', discovery: published })).toEqual({
      kind: 'published',
      location: 's3://b/skills.index',
      createdAt: 'then',
      packageVersion: '9.9.9',
    });
  });

  it('builds its library once, and keeps one per visible set, the most recently used', () => {
    const options = resolveOptions({ directories: ['/skills'] });
    const skills = Array.from({ length: KEPT_VISIBLE_SETS + 2 }, (_, i) => ({
      metadata: { name: `s${i}`, description: `Skill ${i}.` },
      path: `/skills/s${i}/SKILL.md`,
      directory: `/skills/s${i}`,
      instructions: '',
      resources: [],
    }));
    const discovery = { skills, scannedDirectories: ['/skills'], errors: [], warnings: [] };
    const loaded = loadedIndexOf({ from: 'scan', read: 'whole', discovery }, createSkillIndex(discovery), 0, new Libraries(options));
    expect(loaded.library).toBe(loaded.library);
    expect(loaded.visiblePart([])).toBe(loaded.library);
    const first = loaded.visiblePart([0]);
    expect(first.index.get('s0')).toBeUndefined();
    expect(loaded.visiblePart([0])).toBe(first);
    // KEPT_VISIBLE_SETS other sets push the first one out; the set then gets a new library.
    for (let i = 1; i <= KEPT_VISIBLE_SETS; i++) loaded.visiblePart([i]);
    expect(loaded.visiblePart([0])).not.toBe(first);
    loaded.library.bodies?.stop();
  });
});

describe('a run', () => {
  it('owns its tools: made on its first request, the same on the next; a new run makes its own', () => {
    const options = resolveOptions({ directories: ['/skills'], rankInstructions: false });
    const skills = [
      { metadata: { name: 'a', description: 'A.' }, path: '/skills/a/SKILL.md', directory: '/skills/a', instructions: '', resources: [] },
    ];
    const discovery = { skills, scannedDirectories: ['/skills'], errors: [], warnings: [] };
    const loaded = loadedIndexOf({ from: 'scan', read: 'whole', discovery }, createSkillIndex(discovery), 0, new Libraries(options));
    const toolbox = new RunToolbox(
      undefined,
      {},
      new PluginRoots(nodeFileSystem),
      new ActivationGate({ approve: undefined, onEvent: undefined }),
    );
    const run = new SkillsRun({}, loaded.index);
    // A run sees a library before its tools are made.
    expect(() => toolbox.register(createContext(), run)).toThrow(/before it sees a library/);
    run.see(loaded.library);
    toolbox.register(createContext(), run);
    const tools = run.tools;
    expect(tools?.useSkill.name).toBe('use_skill');
    toolbox.register(createContext(), run);
    expect(run.tools).toBe(tools);
    const other = new SkillsRun({}, loaded.index);
    other.see(loaded.library);
    toolbox.register(createContext(), other);
    expect(other.tools?.useSkill).not.toBe(tools?.useSkill);
  });
});
