import { appendFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listResources, resourceLimits } from '../src/discover/resources.js';
import { nodeFileSystem, type SkillsFileSystem } from '../src/base/fs.js';
import {
  BINARY_SNIFF_BYTES,
  createResourceReader,
  DEFAULT_LINE_LIMIT,
  lineWindow,
  looksBinary,
  type ReadOutcome,
  type ResourceReaderSettings,
} from '../src/resources/resource-reader.js';
import type { Skill } from '../src/base/model.js';
import { cleanup, faultyFs, makeTempTree, skillMd, writeTree } from './discover/helpers.js';

const SETTINGS: ResourceReaderSettings = { fs: nodeFileSystem, maxFileSize: 100 * 1024, maxSkillSize: 500 * 1024, cacheTtl: 60_000 };

async function skillAt(directory: string, fs: SkillsFileSystem = nodeFileSystem, maxFileSize = SETTINGS.maxFileSize): Promise<Skill> {
  const { resources } = await listResources(fs, directory, await fs.realpath(directory), resourceLimits({ maxFileSize }));
  return {
    metadata: { name: 'demo', description: 'Demo.' },
    instructions: 'Do it.',
    path: join(directory, 'SKILL.md'),
    directory,
    resources,
  };
}

function text(outcome: ReadOutcome): string {
  if (!outcome.ok) throw new Error(`refused (${outcome.reason}): ${outcome.message}`);
  return outcome.text;
}

describe('looksBinary', () => {
  it('NUL bytes or invalid UTF-8 are binary; a multi-byte character cut at the block end is not', () => {
    expect(looksBinary(new TextEncoder().encode('plain text é ✓'))).toBe(false);
    expect(looksBinary(new Uint8Array([104, 0, 105]))).toBe(true);
    expect(looksBinary(new Uint8Array([0xff, 0xfe, 0x41]))).toBe(true);
    expect(looksBinary(new Uint8Array([0x41, 0xe2, 0x9c]))).toBe(false);
    expect(looksBinary(new Uint8Array())).toBe(false);
  });
});

describe('lineWindow', () => {
  it('counts \\r\\n as one line end and a final newline as no extra line', () => {
    expect(lineWindow({ text: 'a\r\nb\nc\n', offset: 2 })).toEqual({ ok: true, text: 'b\nc', startLine: 2, endLine: 3, totalLines: 3 });
    expect(lineWindow({ text: 'a\n\n' })).toMatchObject({ text: 'a\n', totalLines: 2 });
  });

  it('an empty text is an empty window at line 0; a range past the end or not whole is refused', () => {
    expect(lineWindow({ text: '' })).toEqual({ ok: true, text: '', startLine: 0, endLine: 0, totalLines: 0 });
    expect(lineWindow({ text: 'a\nb', offset: 3 })).toMatchObject({
      ok: false,
      reason: 'bad-range',
      message: expect.stringContaining('the file has 2 lines'),
    });
    expect(lineWindow({ text: 'a', limit: 0.5 })).toMatchObject({ ok: false, reason: 'bad-range' });
  });

  it('returns at most `limit` lines from `offset`', () => {
    const text = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n');
    expect(lineWindow({ text, offset: 4, limit: 2 })).toMatchObject({ text: 'line 4\nline 5', startLine: 4, endLine: 5, totalLines: 10 });
  });
});

describe('createResourceReader (real folders)', () => {
  let root: string;
  let budget: Map<string, number>;
  beforeEach(async () => {
    root = await makeTempTree({ 'SKILL.md': skillMd('demo') });
    budget = new Map();
  });
  afterEach(async () => {
    await cleanup(root);
  });

  it('returns a listed file with its clean path, size and line numbers', async () => {
    await writeTree(root, { 'references/guide.md': '# Guide\r\nline 2\nline 3\n' });
    const reader = createResourceReader(SETTINGS);
    const outcome = await reader.read({ skill: await skillAt(root), path: './references\\guide.md', budget });
    expect(outcome).toMatchObject({
      ok: true,
      path: 'references/guide.md',
      size: 23,
      text: '# Guide\nline 2\nline 3',
      startLine: 1,
      endLine: 3,
      totalLines: 3,
      cached: false,
    });
  });

  it('windows long files by line; defaults to DEFAULT_LINE_LIMIT lines', async () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`);
    await writeTree(root, { 'long.txt': lines.join('\n') });
    const reader = createResourceReader(SETTINGS);
    const skill = await skillAt(root);
    const first = await reader.read({ skill, path: 'long.txt', budget });
    expect(first).toMatchObject({ startLine: 1, endLine: DEFAULT_LINE_LIMIT, totalLines: 1000 });
    expect(text(await reader.read({ skill, path: 'long.txt', offset: 998, budget }))).toBe('line 998\nline 999\nline 1000');
    expect(text(await reader.read({ skill, path: 'long.txt', offset: 10, limit: 2, budget }))).toBe('line 10\nline 11');
    for (const bad of [{ offset: 0 }, { offset: 1001 }, { limit: 0 }, { offset: 1.5 }, { limit: -3 }]) {
      expect(await reader.read({ skill, path: 'long.txt', ...bad, budget })).toMatchObject({ ok: false, reason: 'bad-range' });
    }
    expect((await reader.read({ skill, path: 'long.txt', offset: 1001, budget })) as { message: string }).toMatchObject({
      message: expect.stringContaining('the file has 1000 lines'),
    });
  });

  it('an empty file is read as empty', async () => {
    await writeTree(root, { 'empty.md': '' });
    expect(await createResourceReader(SETTINGS).read({ skill: await skillAt(root), path: 'empty.md', budget })).toMatchObject({
      ok: true,
      text: '',
      totalLines: 0,
      startLine: 0,
      endLine: 0,
    });
  });

  it('refuses a path that is not listed, suggesting the closest listed ones', async () => {
    await writeTree(root, { 'references/guide.md': 'g', 'scripts/run.sh': 'r' });
    const reader = createResourceReader(SETTINGS);
    const outcome = await reader.read({ skill: await skillAt(root), path: 'references/guid.md', budget });
    expect(outcome).toMatchObject({ ok: false, reason: 'not-listed' });
    expect(outcome.ok ? '' : outcome.message).toContain('Closest listed paths: references/guide.md, scripts/run.sh');
    // SKILL.md itself is readable (a cut use_skill answer points there), listed or not.
    const bare = await reader.read({ skill: await skillAt(root, nodeFileSystem), path: 'SKILL.md', budget });
    expect(bare).toMatchObject({ ok: true, path: 'SKILL.md', text: expect.stringContaining('name: demo') });
    const none = { ...(await skillAt(root)), resources: [] };
    expect(await reader.read({ skill: none, path: 'x.md', budget })).toMatchObject({
      ok: false,
      message: expect.stringContaining('has no bundled files'),
    });
  });

  it('refuses secrets even when a hand-built listing names them, and configured patterns too', async () => {
    await writeTree(root, { '.env': 'API_KEY=canary', 'vault.txt': 'canary' });
    const skill = await skillAt(root);
    skill.resources.push(
      { name: '.env', path: '.env', absolutePath: join(root, '.env'), type: 'other', size: 14 },
      { name: 'vault.txt', path: 'vault.txt', absolutePath: join(root, 'vault.txt'), type: 'reference', size: 6 },
    );
    const reader = createResourceReader({ ...SETTINGS, secretPatterns: ['vault*'] });
    expect(await reader.read({ skill, path: '.env', budget })).toMatchObject({ ok: false, reason: 'secret' });
    expect(await reader.read({ skill, path: 'VAULT.txt', budget })).toMatchObject({ ok: false, reason: 'secret' });
  });

  it('returns a message, not bytes, for binary files (NUL or invalid UTF-8), and text across the sniff boundary', async () => {
    await writeFile(join(root, 'logo.png'), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1]));
    await writeFile(join(root, 'latin1.txt'), new Uint8Array([0x63, 0x61, 0x66, 0xe9]));
    const late = new Uint8Array(BINARY_SNIFF_BYTES * 2).fill(0x61);
    late[BINARY_SNIFF_BYTES + 10] = 0xff;
    await writeFile(join(root, 'late.txt'), late);
    const boundary = 'a'.repeat(BINARY_SNIFF_BYTES - 1) + '✓ done';
    await writeFile(join(root, 'boundary.md'), boundary);
    const reader = createResourceReader(SETTINGS);
    const skill = await skillAt(root);
    for (const path of ['logo.png', 'latin1.txt', 'late.txt']) {
      const outcome = await reader.read({ skill, path, budget });
      expect(outcome).toMatchObject({ ok: false, reason: 'binary' });
      expect(outcome.ok ? '' : outcome.message).toMatch(/binary file \((asset|reference), \d/);
    }
    expect(text(await reader.read({ skill, path: 'boundary.md', budget }))).toBe(boundary);
  });

  it('refuses a file that grew past maxFileSize after it was listed', async () => {
    await writeTree(root, { 'grows.md': 'small' });
    const skill = await skillAt(root, nodeFileSystem, 100);
    await appendFile(join(root, 'grows.md'), 'x'.repeat(200));
    const outcome = await createResourceReader({ ...SETTINGS, maxFileSize: 100 }).read({ skill, path: 'grows.md', budget });
    expect(outcome).toMatchObject({ ok: false, reason: 'too-large' });
    expect(outcome.ok ? '' : outcome.message).toContain('205 B, over the 100 B limit for one file (maxFileSize)');
  });

  it("caps the bytes read per skill per run (maxSkillSize), counted in the run's budget", async () => {
    await writeTree(root, { 'a.md': 'a'.repeat(60), 'b.md': 'b\n'.repeat(30) });
    const reader = createResourceReader({ ...SETTINGS, maxSkillSize: 100 });
    const skill = await skillAt(root);
    expect(await reader.read({ skill, path: 'a.md', budget })).toMatchObject({ ok: true, bytes: 60, remaining: 40 });
    const over = await reader.read({ skill, path: 'b.md', budget });
    expect(over).toMatchObject({ ok: false, reason: 'budget' });
    expect(over.ok ? '' : over.message).toContain('only 40 B of the per-skill read limit');
    // A smaller window still fits.
    expect(await reader.read({ skill, path: 'b.md', limit: 10, budget })).toMatchObject({ ok: true, bytes: 19, remaining: 21 });
  });

  it('without a run budget (a hand-wired tool) only the per-file limit applies', async () => {
    await writeTree(root, { 'a.md': 'a'.repeat(100) });
    const reader = createResourceReader({ ...SETTINGS, maxSkillSize: 100 });
    const skill = await skillAt(root);
    for (let i = 0; i < 3; i++) expect(await reader.read({ skill, path: 'a.md' })).toMatchObject({ ok: true, bytes: 100 });
  });

  it('a spent budget refuses at once; another run (budget) or skill starts afresh', async () => {
    await writeTree(root, { 'a.md': 'a'.repeat(100) });
    const reader = createResourceReader({ ...SETTINGS, maxSkillSize: 100 });
    const skill = await skillAt(root);
    expect(await reader.read({ skill, path: 'a.md', budget })).toMatchObject({ ok: true, remaining: 0 });
    expect(await reader.read({ skill, path: 'a.md', budget })).toMatchObject({
      ok: false,
      reason: 'budget',
      message: expect.stringContaining('already read 100 B'),
    });
    expect(await reader.read({ skill, path: 'a.md', budget: new Map() })).toMatchObject({ ok: true });
    const other = { ...skill, metadata: { name: 'other', description: 'Other.' } };
    expect(await reader.read({ skill: other, path: 'a.md', budget })).toMatchObject({ ok: true });
  });

  it('caches by real path and mtime: an edited file is read again; cacheTtl 0 never reuses; the TTL expires', async () => {
    await writeTree(root, { 'notes.md': 'first' });
    let clock = 1_000;
    const reader = createResourceReader({ ...SETTINGS, now: () => clock });
    const skill = await skillAt(root);
    expect(await reader.read({ skill, path: 'notes.md', budget })).toMatchObject({ text: 'first', cached: false });
    expect(await reader.read({ skill, path: 'notes.md', budget })).toMatchObject({ text: 'first', cached: true });
    await writeFile(join(root, 'notes.md'), 'edits');
    const later = new Date(Date.now() + 5_000);
    await utimes(join(root, 'notes.md'), later, later);
    expect(await reader.read({ skill, path: 'notes.md', budget })).toMatchObject({ text: 'edits', cached: false });
    clock += 60_000;
    expect(await reader.read({ skill, path: 'notes.md', budget })).toMatchObject({ text: 'edits', cached: false });
    const uncached = createResourceReader({ ...SETTINGS, cacheTtl: 0 });
    await uncached.read({ skill, path: 'notes.md', budget });
    expect(await uncached.read({ skill, path: 'notes.md', budget })).toMatchObject({ cached: false });
  });
});

describe('createResourceReader (memfs faults)', () => {
  const tree = { '/s/SKILL.md': 'x', '/s/a.md': 'alpha', '/s/sub/b.md': 'beta' };

  it('turns fs errors into refusals naming the reason, and never opens a file it refused', async () => {
    for (const [method, path, reason] of [
      ['realpath', '/s', 'unreadable'],
      ['realpath', '/s/a.md', 'unreadable'],
      ['stat', '/s/a.md', 'unreadable'],
      ['open', '/s/a.md', 'unreadable'],
    ] as const) {
      const { fs, calls } = faultyFs(tree, [{ method, path, code: 'EACCES' }]);
      const skill = await skillAt('/s', faultyFs(tree).fs);
      const outcome = await createResourceReader({ ...SETTINGS, fs }).read({ skill, path: 'a.md', budget: new Map() });
      expect(outcome).toMatchObject({ ok: false, reason });
      expect(outcome.ok ? '' : outcome.message).toContain('permission denied');
      if (method !== 'open') expect(calls).not.toContain('open /s/a.md');
    }
  });

  it('a read error while reading closes the handle and returns a message', async () => {
    const { fs } = faultyFs(tree);
    let closed = 0;
    const failing: SkillsFileSystem = {
      ...fs,
      open: async () => ({
        read: async () => {
          throw Object.assign(new Error('EIO'), { code: 'EIO' });
        },
        close: async () => {
          closed++;
        },
      }),
    };
    const skill = await skillAt('/s', fs);
    expect(await createResourceReader({ ...SETTINGS, fs: failing }).read({ skill, path: 'a.md', budget: new Map() })).toMatchObject({
      ok: false,
      reason: 'unreadable',
      message: expect.stringContaining('EIO'),
    });
    expect(closed).toBe(1);
  });

  it('a file that grows between stat and read is refused, not half-read', async () => {
    const { fs } = faultyFs(tree);
    const growing: SkillsFileSystem = {
      ...fs,
      open: async () => ({
        read: async (buffer: Uint8Array, offset: number, length: number) => {
          buffer.fill(0x61, offset, offset + length);
          return { bytesRead: length };
        },
        close: async () => {},
      }),
    };
    const skill = await skillAt('/s', fs);
    expect(await createResourceReader({ ...SETTINGS, fs: growing }).read({ skill, path: 'a.md', budget: new Map() })).toMatchObject({
      ok: false,
      message: expect.stringContaining('changed while it was being read'),
    });
  });
});
