import { describe, expect, it } from 'vitest';
import { join, sep } from 'node:path';
import { createLimiter, limitConcurrency } from '../../src/base/concurrency.js';
import { scanDirectory } from '../../src/discover/scan.js';
import { childPath, isSameOrInside } from '../../src/base/paths.js';
import { isSkippedName } from '../../src/base/skill-file.js';
import { compareNames } from '../../src/base/text.js';
import type { SkillsFileSystem } from '../../src/base/fs.js';
import { faultyFs } from './helpers.js';

describe('scanDirectory', () => {
  it('lists skills in tree order: a folder before its subfolders, names in code-unit order', async () => {
    const { fs } = faultyFs({
      '/r/b/SKILL.md': 'x',
      '/r/a-b/SKILL.md': 'x',
      '/r/a/SKILL.md': 'x',
      '/r/a/z/SKILL.md': 'x',
      '/r/B/SKILL.md': 'x',
    });
    const result = await scanDirectory(fs, '/r');
    expect(result.skills.map((s) => s.directory)).toEqual(['/r/B', '/r/a', '/r/a/z', '/r/a-b', '/r/b']);
    expect(result.skills[0]).toEqual({ root: '/r', directory: '/r/B', realDirectory: '/r/B', file: '/r/B/SKILL.md', fileType: 'file' });
  });

  it('finds skills however deep they are nested, with no diagnostic', async () => {
    // Fails with a depth limit: 6 levels used to be the most searched, and deeper skills were dropped silently.
    const levels = (n: number): string => Array.from({ length: n }, (_, i) => `l${i}`).join('/');
    const { fs } = faultyFs({ [`/r/${levels(7)}/SKILL.md`]: 'x', [`/r/${levels(40)}/SKILL.md`]: 'x' });
    const result = await scanDirectory(fs, '/r');
    expect(result.skills.map((s) => s.directory)).toEqual([`/r/${levels(7)}`, `/r/${levels(40)}`]);
    expect(result.diagnostics).toEqual([]);
  });

  it('counts a SKILL.md symlink as a skill file but not a folder named SKILL.md', async () => {
    const { fs, volume } = faultyFs({ '/r/linked/real.md': 'x', '/r/odd/SKILL.md/inner.txt': 'x' });
    volume.symlinkSync('/r/linked/real.md', '/r/linked/SKILL.md');
    const result = await scanDirectory(fs, '/r');
    expect(result.skills.map((s) => s.directory)).toEqual(['/r/linked']);
  });

  it('uses a real path for folders reached through a link', async () => {
    const { fs, volume } = faultyFs({ '/store/x/SKILL.md': 'x', '/r/keep.txt': '' });
    volume.symlinkSync('/store', '/r/via');
    const result = await scanDirectory(fs, '/r');
    expect(result.skills).toEqual([
      { root: '/r', directory: '/r/via/x', realDirectory: '/store/x', file: '/r/via/x/SKILL.md', fileType: 'file' },
    ]);
  });

  it('warns on a cycle of links and on a link to an ancestor, without walking them', async () => {
    const { fs, volume, calls } = faultyFs({ '/r/a/SKILL.md': 'x' });
    volume.symlinkSync('/r/cycle', '/r/cycle');
    volume.symlinkSync('/r', '/r/a/up');
    const result = await scanDirectory(fs, '/r');
    expect(result.skills.map((s) => s.directory)).toEqual(['/r/a']);
    expect(result.diagnostics.map((d) => [d.code, d.file, d.severity])).toEqual([
      ['SYMLINK_LOOP', '/r/a/up', 'warning'],
      ['SYMLINK_LOOP', '/r/cycle', 'warning'],
    ]);
    expect(result.diagnostics[0]?.message).toContain('points back to /r');
    expect(result.diagnostics[1]?.message).toContain('cycle of symbolic links');
    expect(calls).not.toContain('readdir /r/a/up');
  });

  it('skips a link whose target cannot be resolved, with a warning', async () => {
    const { fs, volume } = faultyFs({ '/r/real/SKILL.md': 'x' }, [{ method: 'realpath', path: '/r/via', code: 'EACCES' }]);
    volume.symlinkSync('/r/real', '/r/via');
    volume.symlinkSync('/r/gone', '/r/dangling');
    const result = await scanDirectory(fs, '/r');
    expect(result.skills.map((s) => s.directory)).toEqual(['/r/real']);
    expect(result.diagnostics.map((d) => [d.code, d.file, d.severity])).toEqual([
      ['SYMLINK_BROKEN', '/r/dangling', 'warning'],
      ['DIRECTORY_UNREADABLE', '/r/via', 'warning'],
    ]);
  });

  it('stats no plain folder or file, and a link only when its target was not reached yet', async () => {
    const { fs, volume, calls } = faultyFs({ '/r/a/SKILL.md': 'x', '/r/a/notes.md': 'x', '/r/file.txt': 'x', '/store/b/SKILL.md': 'x' });
    volume.symlinkSync('/r/a', '/r/link');
    volume.symlinkSync('/store/b', '/r/other');
    const result = await scanDirectory(fs, '/r');
    expect(result.skills.map((s) => s.directory)).toEqual(['/r/a', '/r/other']);
    expect(calls.filter((c) => c.startsWith('stat') || c.startsWith('lstat'))).toEqual(['stat /store/b']);
  });

  it('reports a missing root as such, and a subfolder that vanished mid-scan as what happened', async () => {
    const { fs } = faultyFs({ '/r/gone/SKILL.md': 'x' }, [{ method: 'readdir', path: '/r/gone', code: 'ENOENT' }]);
    expect((await scanDirectory(fs, '/nope')).diagnostics).toEqual([
      expect.objectContaining({ code: 'DIRECTORY_NOT_FOUND', file: '/nope', line: 0, column: 0, severity: 'warning' }),
    ]);
    const vanished = (await scanDirectory(fs, '/r')).diagnostics;
    expect(vanished).toEqual([expect.objectContaining({ code: 'DIRECTORY_VANISHED', file: '/r/gone', severity: 'warning' })]);
    expect(vanished[0]?.message).toMatch(/^folder disappeared while it was being scanned/);
    expect(vanished[0]?.message).not.toContain('directories');
  });
});

describe('scan helpers', () => {
  it('skips dot-names and node_modules only', () => {
    expect(['.git', '.x', 'node_modules'].every(isSkippedName)).toBe(true);
    expect(['git', 'node_module', 'Node_modules'].some(isSkippedName)).toBe(false);
  });

  it('compares names by code unit', () => {
    expect(['b', 'B', 'a-b', 'a', 'a/b'].sort(compareNames)).toEqual(['B', 'a', 'a-b', 'a/b', 'b']);
    expect(compareNames('x', 'x')).toBe(0);
  });

  it('tells whether a path is a folder or lies inside it', () => {
    expect(isSameOrInside('/a/b', '/a')).toBe(true);
    expect(isSameOrInside('/a', '/a')).toBe(true);
    expect(isSameOrInside('/ab', '/a')).toBe(false);
    expect(isSameOrInside('/a/b', '/')).toBe(true);
  });

  it('builds child paths exactly as path.join would for normal folders, the filesystem root included', () => {
    for (const folder of [sep, join(sep, 'skills'), join(sep, 'a', 'b c')]) {
      expect(childPath(folder, 'SKILL.md')).toBe(join(folder, 'SKILL.md'));
    }
  });
});

describe('limitConcurrency', () => {
  it('never has more than the limit in flight, passes results and errors through', async () => {
    let inFlight = 0;
    let peak = 0;
    const slow = async <T>(value: T): Promise<T> => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
      return value;
    };
    const base: SkillsFileSystem = {
      readdir: (path) => slow([{ name: path, isFile: () => true, isDirectory: () => false, isSymbolicLink: () => false }]),
      readFile: (path) => (path === 'bad' ? Promise.reject(new Error('boom')) : slow(`text of ${path}`)),
      stat: () => slow({ size: 1, mtimeMs: 0, isFile: () => true, isDirectory: () => false, isSymbolicLink: () => false }),
      lstat: () => slow({ size: 2, mtimeMs: 0, isFile: () => true, isDirectory: () => false, isSymbolicLink: () => false }),
      realpath: (path) => slow(`/real${path}`),
      open: () => slow({ read: async () => ({ bytesRead: 0 }), close: async () => undefined }),
    };
    const fs = limitConcurrency(base, createLimiter(3));
    const results = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => fs.readFile(`f${i}`, 'utf8')),
      fs.readdir('d', { withFileTypes: true }).then((e) => e[0]?.name),
      fs.stat('s').then((s) => s.size),
      fs.lstat('l').then((s) => s.size),
      fs.realpath('/p'),
      fs.open('o', 'r').then((h) => typeof h.close),
      fs.readFile('bad', 'utf8').catch((error: Error) => error.message),
    ]);
    expect(results.slice(0, 2)).toEqual(['text of f0', 'text of f1']);
    expect(results.slice(20)).toEqual(['d', 1, 2, '/real/p', 'function', 'boom']);
    expect(peak).toBe(3);
    // Slots are all released: a later call still runs.
    await expect(fs.readFile('after', 'utf8')).resolves.toBe('text of after');
  });
});
