/**
 * The prebuilt index: a build written and read back gives what discovery
 * gives; every file that cannot be used is `{ ok: false }` with a reason and
 * one INDEX_UNUSABLE warning, never a throw; and a SKILL.md changed or gone
 * since the build is caught at activation.
 */
import { Buffer } from 'node:buffer';
import { cp, mkdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { discover } from '../src/discover/discover.js';
import { nodeFileSystem } from '../src/base/fs.js';
import { resolveOptions } from '../src/config/resolve.js';
import {
  buildPrebuiltIndex,
  parsePrebuiltIndex,
  prebuiltIndexFrom,
  readPrebuiltIndex,
  serializePrebuiltIndex,
} from './helpers/prebuilt.js';
import {
  PREBUILT_INDEX_FORMAT,
  PREBUILT_INDEX_VERSION,
  type DiscoveryShape,
  type PrebuiltIndexDocument,
  type PrebuiltRanker,
} from '../src/index/prebuilt/format.js';
import type { PrebuiltIndexRead } from '../src/index/prebuilt/read.js';
import { checkSkillFile, compareSkillStamp } from '../src/index/prebuilt/stamps.js';
import { createLazySkillIndex } from '../src/index/skill-index.js';
import type { SkillEntry } from '../src/base/model.js';
import { cleanup, faultyFs, makeTempTree, skillMd } from './discover/helpers.js';

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await cleanup(root);
});

/** A library with a nested skill, a broken one and a warning, plus the index built for it at <root>/skills.index.json. */
async function library(): Promise<{ root: string; skills: string; indexFile: string; shape: DiscoveryShape }> {
  const root = await makeTempTree({
    'skills/pdf-tools/SKILL.md': skillMd('pdf-tools', 'Fill PDF forms. Use for PDFs.', 'tags: [pdf, forms]\n'),
    'skills/pdf-tools/references/guide.md': '# Guide\n',
    'skills/devops/deploy/SKILL.md': skillMd('deploy'),
    // No description: an error, and the skill is not loaded.
    'skills/broken/SKILL.md': '---\nname: broken\n---\n',
    'skills/Misnamed/SKILL.md': skillMd('other-name'),
  });
  roots.push(root);
  const skills = join(root, 'skills');
  const indexFile = join(root, 'skills.index.json');
  const document = await buildPrebuiltIndex({ directories: [skills] }, indexFile, () => new Date('2026-01-02T03:04:05.000Z'));
  await writeFile(indexFile, serializePrebuiltIndex(document));
  return { root, skills, indexFile, shape: { directories: [skills], packages: [], include: [], exclude: [], strict: false } };
}

/** A typed array as the index stores it (little-endian on the machines tests run on). */
const base64 = (array: Int32Array | Uint16Array): string =>
  Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString('base64');
const decoded = (text: string): Uint16Array => {
  const bytes = Buffer.from(text, 'base64');
  return new Uint16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
};

function expectUnusable(read: PrebuiltIndexRead, reason: string, file: string): string {
  if (read.ok) throw new Error('expected the index to be refused');
  expect(read.reason).toBe(reason);
  expect(read.diagnostic).toMatchObject({ code: 'INDEX_UNUSABLE', severity: 'warning', file, message: read.message });
  // Every refusal says how to fix it and what happens meanwhile.
  expect(read.message).toMatch(/sisu-skills index|`index` option/);
  expect(read.message).toContain('scanning the directories');
  return read.message;
}

describe('buildPrebuiltIndex + readPrebuiltIndex', () => {
  it('reads back what lazy discovery found, with each SKILL.md stamp', async () => {
    const { skills, indexFile, shape } = await library();
    const read = await readPrebuiltIndex(indexFile, { ...shape, fs: nodeFileSystem });
    if (!read.ok) throw new Error(read.message);
    const scanned = await discover(resolveOptions({ directories: [skills] }), { frontmatterOnly: true });
    expect(read.result.skills).toEqual(scanned.skills);
    expect(read.result.skills.map((s) => s.metadata.name)).toEqual(['other-name', 'deploy', 'pdf-tools']);
    expect(read.result.errors).toEqual(scanned.errors);
    expect(read.result.warnings).toEqual(scanned.warnings);
    expect(read.result.errors.map((d) => d.code)).toContain('METADATA_REQUIRED');
    expect(read.result.warnings.map((d) => d.code)).toContain('NAME_MISMATCH');
    expect(read.result.scannedDirectories).toEqual([skills]);
    expect(read.result.createdAt).toBe('2026-01-02T03:04:05.000Z');
    for (const skill of read.result.skills) {
      const stats = await stat(skill.path);
      expect(read.result.stamps.of(skill)).toEqual({ size: stats.size, mtimeMs: stats.mtimeMs });
    }
    // A skill the index does not hold (another path under a held name, or another name) has no stamp.
    const [first] = read.result.skills;
    expect(read.result.stamps.of({ ...first!, path: join(skills, 'elsewhere', 'SKILL.md') })).toBeUndefined();
    expect(read.result.stamps.of({ ...first!, metadata: { name: 'not-there', description: 'x' } })).toBeUndefined();
    // The lazy index builds from it and loads bodies on demand.
    const index = createLazySkillIndex(read.result, async (entry) => ({
      skill: { ...entry, instructions: 'body', resources: [] },
      diagnostics: [],
    }));
    expect(index.get('deploy')?.directory).toBe(join(skills, 'devops', 'deploy'));
    expect((await index.load('pdf-tools'))?.instructions).toBe('body');
  });

  it('stores paths relative to the index file, so a library moved whole still reads', async () => {
    const { root } = await library();
    const text = await readFile(join(root, 'skills.index.json'), 'utf8');
    expect(text).not.toContain(root);
    const moved = `${root}-moved`;
    roots.push(moved);
    await cp(root, moved, { recursive: true, preserveTimestamps: true });
    const skills = join(moved, 'skills');
    const read = await readPrebuiltIndex(join(moved, 'skills.index.json'), {
      directories: [skills],
      packages: [],
      include: [],
      exclude: [],
      strict: false,
      fs: nodeFileSystem,
    });
    if (!read.ok) throw new Error(read.message);
    expect(read.result.skills.every((s) => s.path.startsWith(skills + sep) && s.path === join(s.directory, 'SKILL.md'))).toBe(true);
    expect(read.result.errors.every((d) => d.file.startsWith(skills + sep))).toBe(true);
    // Same timestamps after the copy: every stamp still matches.
    for (const skill of read.result.skills) {
      const check = await checkSkillFile(nodeFileSystem, skill, read.result.stamps.of(skill)!);
      expect(check.status).toBe('unchanged');
    }
  });

  it('writes one line per skill and parses back to the same document', async () => {
    const { indexFile } = await library();
    const text = await readFile(indexFile, 'utf8');
    const document = JSON.parse(text) as PrebuiltIndexDocument;
    expect(document).toMatchObject({ format: PREBUILT_INDEX_FORMAT, version: PREBUILT_INDEX_VERSION, packageVersion: expect.any(String) });
    expect(text.split('\n').filter((line) => line.startsWith('    {"directory"'))).toHaveLength(3);
    expect(JSON.parse(serializePrebuiltIndex(document))).toEqual(document);
    const empty = { ...document, skills: [] };
    expect(JSON.parse(serializePrebuiltIndex(empty))).toEqual(empty);
  });

  it('writes ASCII only, and characters past it read back the same', async () => {
    const root = await makeTempTree({
      // A curly quote, an accent, a CJK character, an emoji (a surrogate pair) and a control character.
      'skills/resume/SKILL.md': skillMd('resume', 'Write a résumé’s “summary” 履歴書 📄 with\u0001 care.', 'tags: [café, 📄]\n'),
    });
    roots.push(root);
    const skills = join(root, 'skills');
    const indexFile = join(root, 'skills.index.json');
    const text = serializePrebuiltIndex(await buildPrebuiltIndex({ directories: [skills] }, indexFile));
    expect(text).toMatch(/^[\n\x20-\x7e]*$/);
    expect(text).toContain('r\\u00e9sum\\u00e9\\u2019s');
    const read = parsePrebuiltIndex(text, indexFile, { directories: [skills], packages: [], include: [], exclude: [], strict: false });
    if (!read.ok) throw new Error(read.message);
    const scanned = await discover(resolveOptions({ directories: [skills] }), { frontmatterOnly: true });
    expect(read.result.skills.map((s) => s.metadata)).toEqual(scanned.skills.map((s) => s.metadata));
    expect(read.result.skills[0]?.metadata.description).toBe('Write a résumé’s “summary” 履歴書 📄 with\u0001 care.');
  });

  it('leaves out a SKILL.md that vanished between discovery and the build, with an error', async () => {
    const { fs } = faultyFs({ '/lib/a/SKILL.md': skillMd('a'), '/lib/b/SKILL.md': skillMd('b') }, [
      { method: 'stat', path: '/lib/b/SKILL.md', code: 'ENOENT' },
    ]);
    const entries: SkillEntry[] = ['a', 'b'].map((name) => ({
      metadata: { name, description: `Does ${name}.` },
      path: `/lib/${name}/SKILL.md`,
      directory: `/lib/${name}`,
    }));
    const shape = { directories: ['/lib'], packages: [], include: [], exclude: [], strict: false };
    const document = await prebuiltIndexFrom(
      { skills: entries, scannedDirectories: ['/lib'], errors: [], warnings: [] },
      { ...shape, fs },
      '/lib/index.json',
      new Date(0),
    );
    expect(document.skills.map((s) => s.metadata.name)).toEqual(['a']);
    expect(document.errors).toEqual([
      expect.objectContaining({
        code: 'SKILL_UNREADABLE',
        file: './b/SKILL.md',
        message: expect.stringContaining('build the index again'),
      }),
    ]);
  });
});

describe('readPrebuiltIndex refuses, never throws', () => {
  it('a missing file, and one that cannot be read', async () => {
    const { root, indexFile, shape } = await library();
    const missing = join(root, 'nope.json');
    expectUnusable(await readPrebuiltIndex(missing, { ...shape, fs: nodeFileSystem }), 'missing', missing);
    // A folder where the file should be: unreadable as root too.
    const folder = join(root, 'folder.json');
    await mkdir(folder);
    expect(expectUnusable(await readPrebuiltIndex(folder, { ...shape, fs: nodeFileSystem }), 'unreadable', folder)).toContain(
      'it is a directory',
    );
    const { fs } = faultyFs({ '/x/index.json': '{}' }, [{ method: 'readFile', path: '/x/index.json', code: 'EACCES' }]);
    expect(expectUnusable(await readPrebuiltIndex('/x/index.json', { ...shape, fs }), 'unreadable', '/x/index.json')).toContain(
      'permission denied',
    );
    expect((await readPrebuiltIndex(indexFile, { ...shape, fs: nodeFileSystem })).ok).toBe(true);
  });

  it('text that is not JSON, with the line and column of the problem', () => {
    const read = parsePrebuiltIndex('{\n  "format": "sisu-skills-index",\n  "version": 1,,\n}', '/x/index.json', {
      directories: ['/x'],
      packages: [],
      include: [],
      exclude: [],
      strict: false,
    });
    expectUnusable(read, 'not-json', '/x/index.json');
    if (read.ok) return;
    expect(read.diagnostic).toMatchObject({ line: 3, column: 16 });
    const empty = parsePrebuiltIndex('', '/x/index.json', { directories: ['/x'], packages: [], include: [], exclude: [], strict: false });
    expectUnusable(empty, 'not-json', '/x/index.json');
    if (!empty.ok) expect(empty.diagnostic).toMatchObject({ line: 1, column: 1 });
  });

  it('JSON that is not a skills index, and an index in another format version', () => {
    const shape = { directories: ['/x'], packages: [], include: [], exclude: [], strict: false };
    for (const text of ['null', '[]', '{}', '"sisu-skills-index"', '{"format":"other","version":1}']) {
      expectUnusable(parsePrebuiltIndex(text, '/x/i.json', shape), 'wrong-format', '/x/i.json');
    }
    const newer = parsePrebuiltIndex(
      JSON.stringify({ format: PREBUILT_INDEX_FORMAT, version: PREBUILT_INDEX_VERSION + 1, packageVersion: '9.0.0' }),
      '/x/i.json',
      shape,
    );
    const message = expectUnusable(newer, 'incompatible-version', '/x/i.json');
    expect(message).toContain(`by @sisu-ai/mw-skills 9.0.0 in index format ${PREBUILT_INDEX_VERSION + 1}`);
    expect(message).toContain(`reads formats 1 and ${PREBUILT_INDEX_VERSION} only`);
    expectUnusable(
      parsePrebuiltIndex(JSON.stringify({ format: PREBUILT_INDEX_FORMAT, version: 0 }), '/x/i.json', shape),
      'incompatible-version',
      '/x/i.json',
    );
    expectUnusable(
      parsePrebuiltIndex(JSON.stringify({ format: PREBUILT_INDEX_FORMAT, version: '1' }), '/x/i.json', shape),
      'incompatible-version',
      '/x/i.json',
    );
  });

  it('an index built for other directories or options; pattern order does not count', async () => {
    const { root, skills, indexFile, shape } = await library();
    const text = await readFile(indexFile, 'utf8');
    const other = (changes: Partial<DiscoveryShape>) => parsePrebuiltIndex(text, indexFile, { ...shape, ...changes });
    expect(expectUnusable(other({ directories: [join(root, 'elsewhere')] }), 'other-options', indexFile)).toContain('directories');
    expectUnusable(other({ directories: [skills, join(root, 'more')] }), 'other-options', indexFile);
    expect(expectUnusable(other({ include: ['pdf-*'] }), 'other-options', indexFile)).toContain(
      'include [] , the middleware has ["pdf-*"]'.replace(' ,', ','),
    );
    expectUnusable(other({ exclude: ['deploy'] }), 'other-options', indexFile);
    expect(expectUnusable(other({ strict: true }), 'other-options', indexFile)).toContain('strict false, the middleware has true');

    const filtered = join(root, 'filtered.json');
    await writeFile(
      filtered,
      serializePrebuiltIndex(await buildPrebuiltIndex({ directories: [skills], include: ['deploy', 'pdf-*'] }, filtered)),
    );
    const read = await readPrebuiltIndex(filtered, { ...shape, include: ['pdf-*', 'deploy'], fs: nodeFileSystem });
    if (!read.ok) throw new Error(read.message);
    expect(read.result.skills.map((s) => s.metadata.name).sort()).toEqual(['deploy', 'pdf-tools']);
  });

  it('skills from npm packages: packages must match, and their roots are allowed', async () => {
    const root = await makeTempTree({
      'app/node_modules/@acme/skill-pdf/package.json': JSON.stringify({ name: '@acme/skill-pdf', version: '1.2.3' }),
      'app/node_modules/@acme/skill-pdf/SKILL.md': skillMd('pdf'),
      'app/skills/deploy/SKILL.md': skillMd('deploy'),
    });
    roots.push(root);
    const app = join(root, 'app');
    const options = { directories: [join(app, 'skills')], packages: ['@acme/skill-pdf'], cwd: app };
    const indexFile = join(app, 'skills.index.json');
    await writeFile(indexFile, serializePrebuiltIndex(await buildPrebuiltIndex(options, indexFile)));
    const resolved = resolveOptions(options);
    const read = await readPrebuiltIndex(indexFile, resolved);
    if (!read.ok) throw new Error(read.message);
    expect(read.result.skills.map((s) => [s.metadata.name, s.directory])).toEqual([
      ['deploy', join(app, 'skills', 'deploy')],
      ['pdf', join(app, 'node_modules', '@acme', 'skill-pdf')],
    ]);
    expect(expectUnusable(await readPrebuiltIndex(indexFile, { ...resolved, packages: [] }), 'other-options', indexFile)).toContain(
      'packages ["@acme/skill-pdf"], the middleware has []',
    );
    // Without packages configured, a skill under node_modules is outside what the middleware scans.
    const text = (await readFile(indexFile, 'utf8')).replace('"packages": [\n      "@acme/skill-pdf"\n    ]', '"packages": []');
    expect(text).not.toContain('"@acme/skill-pdf"\n');
    expectUnusable(parsePrebuiltIndex(text, indexFile, { ...resolved, packages: [] }), 'malformed', indexFile);
  });

  it('a damaged document: each broken part is named', async () => {
    const { indexFile, shape } = await library();
    const good = JSON.parse(await readFile(indexFile, 'utf8')) as PrebuiltIndexDocument;
    const damaged = (change: (d: Record<string, unknown> & PrebuiltIndexDocument) => void): PrebuiltIndexRead => {
      const copy = structuredClone(good) as Record<string, unknown> & PrebuiltIndexDocument;
      change(copy);
      return parsePrebuiltIndex(JSON.stringify(copy), indexFile, shape);
    };
    const cases: Array<[string, (d: Record<string, unknown> & PrebuiltIndexDocument) => void]> = [
      ['"options"', (d) => delete (d as Partial<PrebuiltIndexDocument>).options],
      ['"options"', (d) => (d.options = { ...d.options, strict: 'no' as unknown as boolean })],
      ['"skills" is not a list', (d) => (d.skills = {} as unknown as [])],
      ['skill 1: not an object', (d) => (d.skills[0] = 7 as unknown as (typeof d.skills)[0])],
      ['skill 2: metadata has no name', (d) => delete (d.skills[1]!.metadata as Record<string, unknown>).name],
      ['skill 1: metadata has no description', (d) => (d.skills[0]!.metadata.description = ' ')],
      // Whatever trim() strips counts as blank: line ends, no-break spaces, a byte-order mark.
      ['skill 1: metadata has no description', (d) => (d.skills[0]!.metadata.description = '\n\u00a0\ufeff\u2028\t')],
      ['skill 1: "size" and "mtimeMs"', (d) => (d.skills[0]!.size = -1)],
      ['skill 3: "directory"', (d) => (d.skills[2]!.directory = '')],
      ['skill 1: "file"', (d) => (d.skills[0]!.file = '')],
      ['outside the configured directories', (d) => (d.skills[0]!.directory = '../../../etc')],
      ['outside the configured directories', (d) => (d.skills[0]!.directory = '/etc')],
      ['outside the configured directories', (d) => (d.skills[0]!.directory = './skills/../../x')],
      ['"errors" and "warnings"', (d) => (d.errors = [{ ...d.errors[0]!, severity: 'warning' }])],
      ['"errors" and "warnings"', (d) => (d.warnings = [{ ...d.warnings[0]!, line: 1.5 }])],
      ['"errors" and "warnings"', (d) => delete (d as Partial<PrebuiltIndexDocument>).warnings],
      ['"scannedDirectories"', (d) => (d.scannedDirectories = [1] as unknown as string[])],
      ['"createdAt"', (d) => delete (d as Partial<PrebuiltIndexDocument>).createdAt],
      ['"specials" does not match', (d) => (d.skills[0]!.specials = [[['tags'], 'NaN']])],
      ['"ranker" is not an object', (d) => (d.ranker = 5 as unknown as PrebuiltRanker)],
      ['"ranker.count"', (d) => (d.ranker.count = 4)],
      ['"ranker.terms"', (d) => (d.ranker.terms = 3 as unknown as string)],
      ['base64 arrays', (d) => (d.ranker.docBits = 8 as unknown as 16)],
      ['base64 arrays', (d) => (d.ranker.weights = d.ranker.weights.slice(0, -4))],
      ['base64 arrays', (d) => (d.ranker.offsets = [1] as unknown as string)],
      ['terms are not sorted and distinct', (d) => (d.ranker.terms = d.ranker.terms.split(' ').reverse().join(' '))],
      ['terms are not sorted and distinct', (d) => (d.ranker.terms = d.ranker.terms.replace(/^(\S+)/, '$1 $1'))],
      ['do not span the postings', (d) => (d.ranker.offsets = base64(new Int32Array([0, 1])))],
      ['not as many weights as postings', (d) => (d.ranker.weights = base64(new Uint16Array([1])))],
      ['is out of range', (d) => (d.ranker.count = 1)],
      ['is out of range', (d) => (d.ranker.weights = base64(new Uint16Array(decoded(d.ranker.weights).length)))],
    ];
    for (const [detail, change] of cases) {
      expect(expectUnusable(damaged(change), 'malformed', indexFile), detail).toContain(detail);
    }
    // A path with `..` inside that stays within the directories is normalised, not refused.
    const normalised = damaged((d) => (d.skills[0]!.directory = `./skills/x/../${d.skills[0]!.directory.split('/').at(-1)}`));
    if (!normalised.ok) throw new Error(normalised.message);
    expect(normalised.result.skills[0]!.directory).not.toContain('..');
  });

  it('never throws on arbitrary JSON in any field (property)', () => {
    const shape = { directories: ['/lib'], packages: [], include: [], exclude: [], strict: false };
    const base = {
      format: PREBUILT_INDEX_FORMAT,
      version: PREBUILT_INDEX_VERSION,
      packageVersion: '0.0.0',
      createdAt: '2026-01-01T00:00:00.000Z',
      options: { directories: ['.'], packages: [], include: [], exclude: [], strict: false },
      scannedDirectories: ['.'],
      errors: [],
      warnings: [],
      skills: [{ directory: './a', size: 1, mtimeMs: 1, metadata: { name: 'a', description: 'A.' } }],
    };
    const keys = Object.keys(base);
    fc.assert(
      fc.property(
        fc.constantFrom(...keys, 'ranker', 'skills.0', 'skills.0.metadata', 'skills.0.specials'),
        fc.jsonValue(),
        (key, value) => {
          const document = structuredClone(base) as Record<string, unknown>;
          const [head, index, field] = key.split('.');
          if (field) ((document.skills as Array<Record<string, unknown>>)[Number(index)] as Record<string, unknown>)[field] = value;
          else if (index) (document.skills as unknown[])[Number(index)] = value;
          else document[head!] = value;
          const read = parsePrebuiltIndex(JSON.stringify(document), '/lib/index.json', shape);
          expect(typeof read.ok).toBe('boolean');
          if (read.ok) expect(read.result.skills.every((s) => s.directory.startsWith('/lib/'))).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('metadata JSON cannot carry', () => {
  it('keeps NaN, ±Infinity, -0 and a `__proto__` key through a write and a read', async () => {
    const metadata: Record<string, unknown> = {
      name: 'odd',
      description: 'Odd numbers.',
      metadata: { nan: Number.NaN, list: [1, Infinity, { deep: -Infinity }], zero: -0, plain: 2 },
    };
    Object.defineProperty(metadata, '__proto__', { value: { polluted: true }, enumerable: true, writable: true, configurable: true });
    const { fs } = faultyFs({ '/lib/odd/SKILL.md': 'x' });
    const entry = { metadata: metadata as SkillEntry['metadata'], path: '/lib/odd/SKILL.md', directory: '/lib/odd' };
    const shape = { directories: ['/lib'], packages: [], include: [], exclude: [], strict: false };
    const document = await prebuiltIndexFrom(
      { skills: [entry], scannedDirectories: ['/lib'], errors: [], warnings: [] },
      { ...shape, fs },
      '/lib/index.json',
      new Date(0),
    );
    expect(document.skills[0]!.specials).toHaveLength(4);
    // The entry's own metadata was not changed by the encoding.
    expect(Number.isNaN((entry.metadata.metadata as Record<string, number>).nan)).toBe(true);
    const read = parsePrebuiltIndex(serializePrebuiltIndex(document), '/lib/index.json', shape);
    if (!read.ok) throw new Error(read.message);
    const back = read.result.skills[0]!.metadata;
    const inner = back.metadata as { nan: number; list: [number, number, { deep: number }]; zero: number; plain: number };
    expect(Number.isNaN(inner.nan)).toBe(true);
    expect(inner.list).toEqual([1, Infinity, { deep: -Infinity }]);
    expect(Object.is(inner.zero, -0)).toBe(true);
    expect(inner.plain).toBe(2);
    expect(Object.hasOwn(back, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('checkSkillFile: SKILL.md since the build', () => {
  async function indexed() {
    const { indexFile, shape } = await library();
    const read = await readPrebuiltIndex(indexFile, { ...shape, fs: nodeFileSystem });
    if (!read.ok) throw new Error(read.message);
    const skill = read.result.skills.find((s) => s.metadata.name === 'pdf-tools')!;
    return { skill, stamp: read.result.stamps.of(skill)! };
  }

  it('unchanged, then changed in size, then in mtime only', async () => {
    const { skill, stamp } = await indexed();
    expect(await checkSkillFile(nodeFileSystem, skill, stamp)).toEqual({ status: 'unchanged' });

    const original = await readFile(skill.path, 'utf8');
    await writeFile(skill.path, `${original}\nMore steps.\n`);
    const grown = await checkSkillFile(nodeFileSystem, skill, stamp);
    expect(grown).toMatchObject({
      status: 'changed',
      skill: 'pdf-tools',
      path: skill.path,
      diagnostic: { code: 'INDEX_STALE', file: skill.path },
    });
    if (grown.status === 'unchanged') return;
    expect(grown.detail).toContain(`size ${stamp.size} -> ${stamp.size + 13} bytes`);
    expect(grown.message).toContain('Skill "pdf-tools" is not available');
    expect(grown.message).toContain('choose another skill');

    // Same size, new mtime: an edit that kept the length is still caught.
    await writeFile(skill.path, original.replace('Fill', 'Fil_'));
    await utimes(skill.path, new Date(stamp.mtimeMs + 5000), new Date(stamp.mtimeMs + 5000));
    const touched = await checkSkillFile(nodeFileSystem, skill, stamp);
    expect(touched.status).toBe('changed');
    if (touched.status !== 'unchanged') expect(touched.detail).toMatch(/^modified \S+ -> \S+$/);
  });

  it('vanished, replaced by a folder, or not checkable', async () => {
    const { skill, stamp } = await indexed();
    await rm(skill.path);
    const gone = await checkSkillFile(nodeFileSystem, skill, stamp);
    expect(gone).toMatchObject({ status: 'vanished', detail: 'it does not exist' });
    if (gone.status !== 'unchanged') expect(gone.message).toContain('was removed after the skills index was built');

    await mkdir(skill.path);
    expect(await checkSkillFile(nodeFileSystem, skill, stamp)).toMatchObject({
      status: 'changed',
      detail: 'it is no longer a regular file',
    });

    const { fs } = faultyFs({ '/lib/a/SKILL.md': 'x' }, [{ method: 'stat', path: '/lib/a/SKILL.md', code: 'EACCES' }]);
    const entry = { metadata: { name: 'a', description: 'A.' }, path: '/lib/a/SKILL.md', directory: '/lib/a' };
    expect(await checkSkillFile(fs, entry, { size: 1, mtimeMs: 0 })).toMatchObject({ status: 'unreadable', detail: 'permission denied' });
  });

  it('compareSkillStamp is pure: same stamp, other size, other mtime', () => {
    const entry = { metadata: { name: 'a', description: 'A.' }, path: '/lib/a/SKILL.md', directory: '/lib/a' };
    const stats = (size: number, mtimeMs: number) => ({
      size,
      mtimeMs,
      isFile: () => true,
      isDirectory: () => false,
      isSymbolicLink: () => false,
    });
    expect(compareSkillStamp(entry, { size: 5, mtimeMs: 10 }, stats(5, 10))).toEqual({ status: 'unchanged' });
    expect(compareSkillStamp(entry, { size: 5, mtimeMs: 10 }, stats(6, 10))).toMatchObject({
      status: 'changed',
      detail: 'size 5 -> 6 bytes',
    });
    expect(compareSkillStamp(entry, { size: 5, mtimeMs: 10 }, stats(5, 11))).toMatchObject({
      status: 'changed',
      detail: expect.stringContaining('modified 1970'),
    });
    // A copy that kept the time through a double is off by less than a millisecond: not a change.
    expect(compareSkillStamp(entry, { size: 5, mtimeMs: 284.2622 }, stats(5, 283.999))).toEqual({ status: 'unchanged' });
  });
});
