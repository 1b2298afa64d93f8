/**
 * The prebuilt index: a build written and read back gives what discovery
 * gives; every file that cannot be used is `{ ok: false }` with a reason and
 * one INDEX_UNUSABLE warning, never a throw; and a SKILL.md changed or gone
 * since the build is caught at activation.
 */
import { Buffer } from 'node:buffer';
import { deflateSync, inflateSync } from 'node:zlib';
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
  shapeOf,
} from './helpers/prebuilt.js';
import { PREBUILT_INDEX_VERSION, type DiscoveryShape, type PrebuiltIndexDocument } from '../src/index/prebuilt/format.js';
import { Container, writeContainer } from '../src/index/prebuilt/codec-container.js';
import { ByteReader, ByteWriter } from '../src/index/prebuilt/codec-bytes.js';
import { version as packageVersion } from '../package.json';
import type { PrebuiltDiscovery, PrebuiltIndexRead } from '../src/index/prebuilt/read.js';
import type { PostingsData } from '../src/base/ranker-data.js';
import { checkSkillFile, compareSkillStamp } from '../src/index/prebuilt/stamps.js';
import { getSkills, skillsMiddleware } from '../src/index.js';
import { callTool, conversation, createContext } from './helpers/stack.js';
import { createLazySkillIndex } from '../src/index/skill-index.js';
import type { SkillEntry } from '../src/base/model.js';
import { cleanup, faultyFs, makeTempTree, skillMd } from './discover/helpers.js';

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await cleanup(root);
});

/** A library with a nested skill, a broken one and a warning, plus the index built for it at <root>/skills.index. */
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
  const indexFile = join(root, 'skills.index');
  const document = await buildPrebuiltIndex({ directories: [skills] }, indexFile, () => new Date('2026-01-02T03:04:05.000Z'));
  await writeFile(indexFile, serializePrebuiltIndex(document));
  return { root, skills, indexFile, shape: shapeOf([skills]) };
}

/** `bytes` (an index file) with its header changed by `change`, its sections as they are. */
function withHeader(bytes: Uint8Array, change: (header: Record<string, unknown>) => void): Uint8Array {
  const container = Container.open(bytes);
  const header = structuredClone(container.header);
  delete header.sections;
  change(header);
  const sections = new Map(container.names().map((name) => [name, container.section(name)!]));
  return writeContainer({ version: PREBUILT_INDEX_VERSION, header, sections, level: 6 });
}

/** `bytes` with section `name` replaced by `section` (or removed). */
function withSection(bytes: Uint8Array, name: string, section: Uint8Array | undefined): Uint8Array {
  const container = Container.open(bytes);
  const { sections: _table, ...header } = container.header;
  const sections = new Map(container.names().map((n) => [n, container.section(n)!]));
  if (section) sections.set(name, Buffer.from(section));
  else sections.delete(name);
  return writeContainer({ version: PREBUILT_INDEX_VERSION, header, sections, level: 6 });
}

/**
 * What a read index holds, as a ranker that asked for every term reads it: each term's postings decoded (they are
 * decoded as ranking first asks for a term), without the decoders and the section reader (which hold functions).
 */
function decodedResult({ section: _section, ranker, ...result }: PrebuiltDiscovery): Record<string, unknown> {
  const decoded = <T extends PostingsData>({ pending, ...postings }: T): Omit<T, 'pending'> => {
    postings.terms.forEach((_, t) => expect(pending?.decode(t) ?? true).toBe(true));
    return postings;
  };
  if (!ranker) return result;
  const { body, ...rest } = decoded(ranker);
  return { ...result, ranker: { ...rest, ...(body ? { body: decoded(body) } : {}) } };
}

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
    const sections = Container.open(await readFile(join(root, 'skills.index')));
    for (const name of ['skills', 'diagnostics']) expect(sections.section(name)!.toString('latin1')).not.toContain(root);
    const moved = `${root}-moved`;
    roots.push(moved);
    await cp(root, moved, { recursive: true, preserveTimestamps: true });
    const skills = join(moved, 'skills');
    const read = await readPrebuiltIndex(join(moved, 'skills.index'), { ...shapeOf([skills]), fs: nodeFileSystem });
    if (!read.ok) throw new Error(read.message);
    expect(read.result.skills.every((s) => s.path.startsWith(skills + sep) && s.path === join(s.directory, 'SKILL.md'))).toBe(true);
    expect(read.result.errors.every((d) => d.file.startsWith(skills + sep))).toBe(true);
    // Same timestamps after the copy: every stamp still matches.
    for (const skill of read.result.skills) {
      const check = await checkSkillFile(nodeFileSystem, skill, read.result.stamps.of(skill)!);
      expect(check.status).toBe('unchanged');
    }
  });

  it('writes format 3: its first line names it, its header what the build knew; a write reads back whole, and again the same', async () => {
    const { indexFile, shape } = await library();
    const bytes = await readFile(indexFile);
    expect(bytes.subarray(0, bytes.indexOf(0x0a) + 1).toString('latin1')).toBe(`sisu-skills-index ${PREBUILT_INDEX_VERSION}\n`);
    const { header } = Container.open(bytes);
    expect(header).toMatchObject({ packageVersion: expect.any(String), createdAt: '2026-01-02T03:04:05.000Z', skillCount: 3 });
    expect(Object.keys(header.sections as object).sort()).toEqual(['diagnostics', 'ranker', 'skills']);
    const read = parsePrebuiltIndex(bytes, indexFile, shape);
    if (!read.ok) throw new Error(read.message);
    // The same document, built again, is the same bytes: a rebuild with nothing changed changes nothing.
    const again = await buildPrebuiltIndex({ directories: shape.directories }, indexFile, () => new Date('2026-01-02T03:04:05.000Z'));
    expect(Buffer.from(serializePrebuiltIndex(again)).equals(bytes)).toBe(true);
    const empty = parsePrebuiltIndex(
      serializePrebuiltIndex({
        ...again,
        skills: [],
        ranker: {
          ...again.ranker,
          count: 0,
          terms: [],
          offsets: Int32Array.of(0),
          docs: new Uint16Array(0),
          weights: new Uint16Array(0),
          nameOrder: new Int32Array(0),
        },
      }),
      indexFile,
      shape,
    );
    if (!empty.ok) throw new Error(empty.message);
    expect(empty.result.skills).toEqual([]);
  });

  it('characters past ASCII read back the same', async () => {
    const root = await makeTempTree({
      // A curly quote, an accent, a CJK character, an emoji (a surrogate pair) and a control character.
      'skills/resume/SKILL.md': skillMd('resume', 'Write a résumé’s “summary” 履歴書 📄 with\u0001 care.', 'tags: [café, 📄]\n'),
    });
    roots.push(root);
    const skills = join(root, 'skills');
    const indexFile = join(root, 'skills.index');
    const bytes = serializePrebuiltIndex(await buildPrebuiltIndex({ directories: [skills] }, indexFile));
    const read = parsePrebuiltIndex(bytes, indexFile, shapeOf([skills]));
    if (!read.ok) throw new Error(read.message);
    const scanned = await discover(resolveOptions({ directories: [skills] }), { frontmatterOnly: true });
    expect(read.result.skills.map((s) => s.metadata)).toEqual(scanned.skills.map((s) => s.metadata));
    expect(read.result.skills[0]?.metadata.description).toBe('Write a résumé’s “summary” 履歴書 📄 with\u0001 care.');
  });

  it('carries the sections another feature hands in, and refuses its own names for them', async () => {
    const { indexFile, shape } = await library();
    const document = await buildPrebuiltIndex({ directories: shape.directories }, indexFile);
    const manifests = Buffer.from('{"signed":true}');
    const read = parsePrebuiltIndex(
      serializePrebuiltIndex({ ...document, sections: new Map([['manifests', manifests]]) }),
      indexFile,
      shape,
    );
    if (!read.ok) throw new Error(read.message);
    expect(read.result.section('manifests')).toEqual(manifests);
    expect(read.result.section('ranker')).toBeUndefined();
    expect(read.result.section('other')).toBeUndefined();
    expect(() => serializePrebuiltIndex({ ...document, sections: new Map([['ranker', manifests]]) })).toThrow(
      'index section "ranker" is the index\'s own',
    );
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
    const shape = shapeOf(['/lib']);
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
  const bare = shapeOf(['/x']);

  it('a missing file, and one that cannot be read', async () => {
    const { root, indexFile, shape } = await library();
    const missing = join(root, 'nope.index');
    expectUnusable(await readPrebuiltIndex(missing, { ...shape, fs: nodeFileSystem }), 'missing', missing);
    // A folder where the file should be: unreadable as root too.
    const folder = join(root, 'folder.index');
    await mkdir(folder);
    expect(expectUnusable(await readPrebuiltIndex(folder, { ...shape, fs: nodeFileSystem }), 'unreadable', folder)).toContain(
      'it is a directory',
    );
    const { fs } = faultyFs({ '/x/skills.index': 'x' }, [{ method: 'open', path: '/x/skills.index', code: 'EACCES' }]);
    expect(expectUnusable(await readPrebuiltIndex('/x/skills.index', { ...shape, fs }), 'unreadable', '/x/skills.index')).toContain(
      'permission denied',
    );
    expect((await readPrebuiltIndex(indexFile, { ...shape, fs: nodeFileSystem })).ok).toBe(true);
  });

  it('a file that is not a skills index, and an index in another format version (the JSON of formats 1 and 2 included)', () => {
    for (const text of ['', 'null', 'PK\u0003\u0004', 'sisu-skills-index\n', 'other-index 3\n', 'sisu-skills-index three\n']) {
      expectUnusable(parsePrebuiltIndex(Buffer.from(text), '/x/i', bare), 'wrong-format', '/x/i');
    }
    const newer = parsePrebuiltIndex(Buffer.from(`sisu-skills-index ${PREBUILT_INDEX_VERSION + 1}\n...`), '/x/i', bare);
    expect(expectUnusable(newer, 'incompatible-version', '/x/i')).toContain(
      `in index format ${PREBUILT_INDEX_VERSION + 1}; this version (${packageVersion}) reads format ${PREBUILT_INDEX_VERSION} only`,
    );
    // Formats 1 and 2 were JSON: said so, with the version and the package that wrote it, never parsed.
    const json = Buffer.from(`{\n  "format": "sisu-skills-index",\n  "version": 2,\n  "packageVersion": "0.1.0",\n  "skills": [`);
    expect(expectUnusable(parsePrebuiltIndex(json, '/x/i.json', bare), 'incompatible-version', '/x/i.json')).toContain(
      'was written by @sisu-ai/mw-skills 0.1.0 in index format 2 (JSON); this version',
    );
    expect(expectUnusable(parsePrebuiltIndex(Buffer.from('{}'), '/x/i.json', bare), 'incompatible-version', '/x/i.json')).toContain(
      'in index format unknown (JSON)',
    );
  });

  it('an index built for other directories or options; pattern order does not count', async () => {
    const { root, skills, indexFile, shape } = await library();
    const bytes = await readFile(indexFile);
    const other = (changes: Partial<DiscoveryShape>) => parsePrebuiltIndex(bytes, indexFile, { ...shape, ...changes });
    expect(expectUnusable(other({ directories: [join(root, 'elsewhere')] }), 'other-options', indexFile)).toContain('directories');
    expectUnusable(other({ directories: [skills, join(root, 'more')] }), 'other-options', indexFile);
    expect(expectUnusable(other({ include: ['pdf-*'] }), 'other-options', indexFile)).toContain(
      'include [] , the middleware has ["pdf-*"]'.replace(' ,', ','),
    );
    expectUnusable(other({ exclude: ['deploy'] }), 'other-options', indexFile);
    expect(expectUnusable(other({ strict: true }), 'other-options', indexFile)).toContain('strict false, the middleware has true');

    const filtered = join(root, 'filtered.index');
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
    const indexFile = join(app, 'skills.index');
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
    const bytes = withHeader(await readFile(indexFile), (header) => ((header.options as { packages: string[] }).packages = []));
    expect(expectUnusable(parsePrebuiltIndex(bytes, indexFile, { ...resolved, packages: [] }), 'malformed', indexFile)).toContain(
      'lies outside the configured directories',
    );
  });

  it('a term whose postings are found damaged at its first use ranks nothing, and one warning says so; the index serves', async () => {
    const { indexFile, skills } = await library();
    const document = await buildPrebuiltIndex({ directories: [skills] }, indexFile);
    const { terms, offsets, docs } = document.ranker;
    const pdf = terms.indexOf('pdf');
    // The term's last doc past every skill: its gap decodes out of range, which only decoding the term finds.
    docs[offsets[pdf + 1]! - 1] = document.ranker.count + 5;
    await writeFile(indexFile, serializePrebuiltIndex(document));
    const middleware = skillsMiddleware({ directories: [skills], index: indexFile, findSkills: true });
    const request = async (query = 'pdf'): Promise<{ ctx: ReturnType<typeof createContext>; found: string }> => {
      const ctx = createContext({ messages: conversation(`help with ${query}`) });
      await middleware(ctx, async () => {});
      return { ctx, found: await callTool(ctx, 'find_skills', { query }) };
    };
    const first = await request();
    // Served from the index (no scan's INDEX_UNUSABLE), and "pdf" finds nothing now (it names pdf-tools otherwise).
    expect(JSON.stringify(first.ctx.log.entries)).not.toContain('INDEX_UNUSABLE');
    expect(first.found).not.toContain('pdf-tools');
    expect(getSkills(first.ctx)?.skills.map((s) => s.metadata.name)).toEqual(['other-name', 'deploy', 'pdf-tools']);
    const second = await request();
    const third = await request('deploy');
    const warned = (ctx: ReturnType<typeof createContext>) =>
      ctx.log.entries.filter((entry) => JSON.stringify(entry).includes('INDEX_UNUSABLE')).map((entry) => JSON.stringify(entry));
    expect(warned(second.ctx)).toHaveLength(1);
    expect(warned(second.ctx)[0]).toContain('Ranking leaves that word out until the index is rebuilt');
    expect(warned(second.ctx)[0]).toContain(indexFile);
    expect(warned(third.ctx)).toEqual([]);
    // Other words still rank from the index.
    expect(third.found).toContain('deploy');
  });

  it('a damaged document: each broken part is named', async () => {
    const { indexFile, shape, skills } = await library();
    const good = await buildPrebuiltIndex({ directories: [skills] }, indexFile);
    const damaged = (change: (d: PrebuiltIndexDocument) => void): PrebuiltIndexRead => {
      const copy = structuredClone(good);
      change(copy);
      return parsePrebuiltIndex(serializePrebuiltIndex(copy), indexFile, shape);
    };
    const cases: Array<[string, (d: PrebuiltIndexDocument) => void]> = [
      ['skill 2: its metadata has no name', (d) => delete (d.skills[1]!.metadata as Record<string, unknown>).name],
      ['skill 1: its metadata has no description', (d) => (d.skills[0]!.metadata.description = ' ')],
      // Whatever trim() strips counts as blank: line ends, no-break spaces, a byte-order mark.
      ['skill 1: its metadata has no description', (d) => (d.skills[0]!.metadata.description = '\n\u00a0\ufeff\u2028\t')],
      ['skill 1: its SKILL.md size or mtime', (d) => (d.skills[0]!.size = -1)],
      ['skill 1: its SKILL.md size or mtime', (d) => (d.skills[0]!.mtimeMs = Number.NaN)],
      ['outside the configured directories', (d) => (d.skills[2]!.directory = '')],
      ['lists SKILL.md paths it should not', (d) => (d.skills[0]!.file = '')],
      ['skill 1: its SKILL.md lies outside its folder', (d) => (d.skills[0]!.file = './skills/other/SKILL.md')],
      ['skill 1: its SKILL.md lies outside its folder', (d) => (d.skills[0]!.file = `${d.skills[0]!.directory}/../x/SKILL.md`)],
      ['outside the configured directories', (d) => (d.skills[0]!.directory = '../../../etc')],
      ['outside the configured directories', (d) => (d.skills[0]!.directory = '/etc')],
      ['outside the configured directories', (d) => (d.skills[0]!.directory = './skills/../../x')],
      ['"errors" and "warnings"', (d) => (d.errors = [{ ...d.errors[0]!, severity: 'warning' }])],
      ['"errors" and "warnings"', (d) => (d.warnings = [{ ...d.warnings[0]!, line: 1.5 }])],
      ['"errors" and "warnings"', (d) => delete (d as Partial<PrebuiltIndexDocument>).warnings],
      ['"scannedDirectories"', (d) => (d.scannedDirectories = [1] as unknown as string[])],
      ['"createdAt"', (d) => delete (d as Partial<PrebuiltIndexDocument>).createdAt],
      ['special numbers do not match', (d) => (d.skills[0]!.specials = [[['tags'], 'NaN']])],
      ['no count of the skills it ranks', (d) => (d.ranker.count = 4)],
      ['terms are not sorted and distinct', (d) => (d.ranker.terms = [...d.ranker.terms].reverse())],
      ['terms are not sorted and distinct', (d) => (d.ranker.terms = [d.ranker.terms[0]!, ...d.ranker.terms])],
      ['has a weight of 0', (d) => (d.ranker.weights = new Uint16Array(d.ranker.weights.length))],
      ['a name order of another length', (d) => (d.ranker.nameOrder = Int32Array.of(0))],
    ];
    for (const [detail, change] of cases) {
      expect(expectUnusable(damaged(change), 'malformed', indexFile), detail).toContain(detail);
    }
    // A path with `..` inside that stays within the directories is normalised, not refused.
    const normalised = damaged((d) => (d.skills[0]!.directory = `./skills/x/../${d.skills[0]!.directory.split('/').at(-1)}`));
    if (!normalised.ok) throw new Error(normalised.message);
    expect(normalised.result.skills[0]!.directory).not.toContain('..');
    // The header and sections as the container holds them.
    const bytes = serializePrebuiltIndex(good);
    const header = (change: (h: Record<string, unknown>) => void) => parsePrebuiltIndex(withHeader(bytes, change), indexFile, shape);
    expect(
      expectUnusable(
        header((h) => delete h.options),
        'malformed',
        indexFile,
      ),
    ).toContain('its header has no options');
    expect(
      expectUnusable(
        header((h) => (h.skillCount = 'many')),
        'malformed',
        indexFile,
      ),
    ).toContain('"skillCount"');
    expect(
      expectUnusable(
        header((h) => (h.skillCount = 2)),
        'malformed',
        indexFile,
      ),
    ).toContain("does not hold 2 skills' metadata");
    const section = (name: string, value: Uint8Array | undefined) => parsePrebuiltIndex(withSection(bytes, name, value), indexFile, shape);
    expect(expectUnusable(section('skills', undefined), 'malformed', indexFile)).toContain('has no section "skills"');
    expect(expectUnusable(section('diagnostics', Buffer.from('{"errors":')), 'malformed', indexFile)).toContain(
      'section "diagnostics" is not JSON',
    );
    expect(expectUnusable(section('ranker', Buffer.from([7, 1, 2])), 'malformed', indexFile)).toContain('section "ranker"');
    // An index without a ranker section ranks as after a scan.
    const noRanker = section('ranker', undefined);
    expect(noRanker.ok && noRanker.result.ranker).toBeUndefined();
  });

  it('hostile bytes: cut short, a byte flipped, a length past the end, a decompression bomb: refused, never a throw (property)', async () => {
    const { indexFile, shape } = await library();
    const bytes = await readFile(indexFile);
    const original = parsePrebuiltIndex(bytes, indexFile, shape);
    if (!original.ok) throw new Error(original.message);
    const expected = decodedResult(original.result);
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 1, max: 255 }), fc.constantFrom('flip', 'cut', 'length'), (at, flip, how) => {
        const hostile = Buffer.from(bytes);
        const position = at % bytes.length;
        if (how === 'flip') hostile[position] = hostile[position]! ^ flip;
        if (how === 'length') hostile.writeUInt32LE(bytes.length + at, bytes.indexOf(0x0a) + 1);
        const read = parsePrebuiltIndex(how === 'cut' ? hostile.subarray(0, position) : hostile, indexFile, shape);
        // zlib's checksums find every flip that changes what a section holds; one in the first line or the header's
        // length is refused for what it is. No checksum covers the bits that change nothing a stream inflates to (the
        // padding that ends a deflate stream; the compression-level hint in a zlib header, with a check that still
        // holds): an index flipped there reads back exactly as written.
        if (read.ok) {
          expect(how).toBe('flip');
          expect(decodedResult(read.result)).toEqual(expected);
        } else expect(read.diagnostic.code).toBe('INDEX_UNUSABLE');
      }),
      { numRuns: 300 },
    );
    // A section that claims 4 GB from a few bytes is refused before anything is allocated.
    const start = bytes.indexOf(0x0a) + 1;
    const length = bytes.readUInt32LE(start);
    const header = JSON.parse(inflateSync(bytes.subarray(start + 4, start + 4 + length)).toString('utf8')) as {
      sections: Record<string, { size: number }>;
    };
    header.sections.skills!.size = 2 ** 32;
    const packed = deflateSync(Buffer.from(JSON.stringify(header)));
    const size = Buffer.alloc(4);
    size.writeUInt32LE(packed.length);
    const bomb = Buffer.concat([bytes.subarray(0, start), size, packed, bytes.subarray(start + 4 + length)]);
    expect(expectUnusable(parsePrebuiltIndex(bomb, indexFile, shape), 'malformed', indexFile)).toContain(
      `section "skills" claims ${2 ** 32} bytes inflated`,
    );
  });

  it('never throws on arbitrary JSON in any header field, diagnostic or metadata (property)', async () => {
    const { indexFile, shape } = await library();
    const bytes = await readFile(indexFile);
    const keys = ['packageVersion', 'createdAt', 'options', 'scannedDirectories', 'skillCount'];
    fc.assert(
      fc.property(fc.constantFrom(...keys, 'diagnostics', 'vectors', 'metadata'), fc.jsonValue(), (key, value) => {
        let hostile: Uint8Array;
        if (key === 'diagnostics' || key === 'vectors') hostile = withSection(bytes, key, Buffer.from(JSON.stringify(value)));
        else if (key === 'metadata') {
          const skills = Container.open(bytes).section('skills')!;
          const out = new ByteWriter().json([value, value, value]);
          hostile = withSection(
            bytes,
            'skills',
            Buffer.concat([out.result(), skills.subarray(new ByteReader(skills, 'x').block().length + 2)]),
          );
        } else hostile = withHeader(bytes, (header) => (header[key] = value));
        const read = parsePrebuiltIndex(hostile, indexFile, shape);
        expect(typeof read.ok).toBe('boolean');
        if (read.ok) expect(read.result.skills.every((s) => s.directory.startsWith(shape.directories[0]! + sep))).toBe(true);
      }),
      { numRuns: 300 },
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
    const shape = shapeOf(['/lib']);
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

describe('the build', () => {
  it('reports skills found, each once, through a file system without readUntil; a body it cannot read leaves that skill ranked by its metadata', async () => {
    const { fs } = faultyFs({ '/lib/a/SKILL.md': skillMd('a'), '/lib/b/SKILL.md': skillMd('b') });
    // Discovery reads b's head through open(); reading its body whole, for the instructions, fails.
    const flaky: typeof fs = {
      ...fs,
      readFile: async (path, encoding) => {
        if (path === '/lib/b/SKILL.md') throw Object.assign(new Error('EIO: injected'), { code: 'EIO' });
        return fs.readFile(path, encoding);
      },
    };
    const phases: Array<[string, number, number | undefined]> = [];
    const document = await buildPrebuiltIndex({ directories: ['/lib'], fs: flaky }, '/lib/skills.index', undefined, {
      instructions: true,
      progress: (phase, done, total) => phases.push([phase, done, total]),
    });
    const found = phases.filter(([phase]) => phase === 'finding skills').map(([, done]) => done);
    expect(found).toEqual([0, 1, 2]);
    expect(phases).toContainEqual(['reading the instructions', 2, 2]);
    expect(document.ranker.body?.read).toBe(1);
  });
});
