import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classifyResource, listResources, MAX_RESOURCE_DEPTH, resourceLimits } from '../../src/discover/resources.js';
import { nodeFileSystem } from '../../src/base/fs.js';
import { cleanup, faultyFs, link, makeTempTree, skillMd, writeTree } from './helpers.js';

const LIMITS = resourceLimits({ maxFileSize: 100 * 1024 });

describe('classifyResource', () => {
  it.each([
    ['scripts/deploy', 'script'],
    ['scripts/data.json', 'script'],
    ['run.sh', 'script'],
    ['tool.PY', 'script'],
    ['lib/helper.ts', 'script'],
    ['x.mjs', 'script'],
    ['templates/report.md', 'template'],
    ['email.hbs', 'template'],
    ['page.j2', 'template'],
    ['report-template.docx', 'template'],
    ['references/api.json', 'reference'],
    ['docs/setup.py', 'reference'],
    ['REFERENCE.md', 'reference'],
    ['notes.txt', 'reference'],
    ['assets/logo.txt', 'asset'],
    ['logo.png', 'asset'],
    ['fonts/Inter.woff2', 'asset'],
    ['data/cities.csv', 'asset'],
    ['schema.yaml', 'asset'],
    ['LICENSE', 'other'],
    ['.env', 'other'],
    ['archive.bin', 'other'],
  ] as const)('%s is a %s', (path, type) => {
    expect(classifyResource(path)).toBe(type);
  });

  it('lets the top-most conventional folder decide', () => {
    expect(classifyResource('assets/templates/card.html')).toBe('asset');
    expect(classifyResource('templates/assets/card.png')).toBe('template');
  });
});

describe('listResources (real folders)', () => {
  let root: string;
  beforeEach(async () => {
    root = await makeTempTree();
  });
  afterEach(async () => {
    await cleanup(root);
  });

  it('lists files recursively, sorted, with names, types and sizes', async () => {
    await writeTree(root, {
      'SKILL.md': skillMd('s'),
      'scripts/fill.py': 'print("x")\n',
      'references/forms.md': '# Forms\n',
      'assets/logo.svg': '<svg/>',
      'templates/letter.txt': 'Dear {{name}}',
      'README.md': 'readme',
      'b/a.txt': 'ba',
      'b-c.txt': 'bc',
      '.env': 'SECRET=1',
      '.git/config': 'x',
      'node_modules/x/index.js': 'x',
      'nested/SKILL.md': skillMd('nested'),
      'nested/own.md': 'own',
    });
    const { resources, diagnostics } = await listResources(nodeFileSystem, root, root, LIMITS);
    expect(diagnostics).toEqual([]);
    expect(resources.map((r) => [r.path, r.type, r.size])).toEqual([
      ['README.md', 'reference', 6],
      ['assets/logo.svg', 'asset', 6],
      ['b-c.txt', 'reference', 2],
      ['b/a.txt', 'reference', 2],
      ['references/forms.md', 'reference', 8],
      ['scripts/fill.py', 'script', 11],
      ['templates/letter.txt', 'template', 13],
    ]);
    expect(resources[5]).toEqual({
      name: 'fill.py',
      path: 'scripts/fill.py',
      absolutePath: join(root, 'scripts', 'fill.py'),
      type: 'script',
      size: 11,
    });
  });

  it('lists files over maxFileSize flagged tooLarge, with one warning each', async () => {
    await writeTree(root, { 'big.bin': 'x'.repeat(11), 'huge.bin': 'x'.repeat(50), 'small.txt': 'x'.repeat(10) });
    const { resources, diagnostics } = await listResources(nodeFileSystem, root, root, resourceLimits({ maxFileSize: 10 }));
    expect(resources.map((r) => [r.path, r.size, r.tooLarge])).toEqual([
      ['big.bin', 11, true],
      ['huge.bin', 50, true],
      ['small.txt', 10, undefined],
    ]);
    expect('tooLarge' in (resources[2] ?? {})).toBe(false);
    expect(diagnostics).toEqual([
      expect.objectContaining({ code: 'RESOURCE_TOO_LARGE', severity: 'warning', file: join(root, 'big.bin'), line: 0, column: 0 }),
      expect.objectContaining({ code: 'RESOURCE_TOO_LARGE', file: join(root, 'huge.bin') }),
    ]);
    expect(diagnostics[0]?.message).toContain('listed as too large to read: it is 11 bytes, over maxFileSize (10 bytes)');
  });

  it('no longer trims the listing by total size: maxSkillSize caps reading, not listing', async () => {
    await writeTree(root, { 'a.txt': 'x'.repeat(400), 'b.txt': 'x'.repeat(400) });
    const { resources, diagnostics } = await listResources(
      nodeFileSystem,
      root,
      root,
      resourceLimits({ maxFileSize: 1000, maxSkillSize: 100 } as { maxFileSize: number }),
    );
    expect(resources.map((r) => r.path)).toEqual(['a.txt', 'b.txt']);
    expect(diagnostics).toEqual([]);
  });

  it('never lists secrets: default patterns on every path segment, case-insensitive, plus configured ones', async () => {
    await writeTree(root, {
      'ok.md': 'ok',
      'server.PEM': 'k',
      'tls/private.key': 'k',
      'ID_RSA.pub': 'k',
      'Credentials.json': 'k',
      'secrets/plain.txt': 'k',
      'SecretsManager.yaml': 'k',
      'config/.env.local': 'k',
      'env.example': 'fine',
      'vault/token.txt': 'k',
      'keys.md': 'fine',
    });
    const listed = async (secretPatterns?: string[]) =>
      (
        await listResources(
          nodeFileSystem,
          root,
          root,
          resourceLimits({ maxFileSize: LIMITS.maxFileSize, ...(secretPatterns ? { secretPatterns } : {}) }),
        )
      ).resources.map((r) => r.path);
    expect(await listed()).toEqual(['env.example', 'keys.md', 'ok.md', 'vault/token.txt']);
    expect(await listed(['VAULT', '*.example'])).toEqual(['keys.md', 'ok.md']);
  });

  it('leaves out names with invisible or control characters, with a warning', async () => {
    await writeTree(root, { 'ok.md': 'ok', 'evil\u202Etxt.sh': 'x', 'zero\u200Bwidth.md': 'x' });
    const { resources, diagnostics } = await listResources(nodeFileSystem, root, root, LIMITS);
    expect(resources.map((r) => r.path)).toEqual(['ok.md']);
    expect(diagnostics.map((d) => d.code)).toEqual(['RESOURCE_UNREADABLE', 'RESOURCE_UNREADABLE']);
    expect(diagnostics[0]?.message).toContain('invisible or control characters');
  });

  it('follows symlinks that stay inside the skill; leaves out links outside it, loops and broken links, with warnings', async () => {
    await writeTree(root, {
      'skill/SKILL.md': skillMd('skill'),
      'skill/references/guide.md': 'guide',
      'skill/private/server.pem': 'key',
      'shared/ref.md': 'shared',
      'shared/one.txt': '1',
    });
    await link(join(root, 'shared'), join(root, 'skill/linked'));
    await link(join(root, 'shared/one.txt'), join(root, 'skill/one-link.txt'));
    await link(join(root, 'skill/references'), join(root, 'skill/docs-alias'));
    await link(join(root, 'skill/references/guide.md'), join(root, 'skill/guide-link.md'));
    await link(join(root, 'skill/private/server.pem'), join(root, 'skill/innocent.txt'));
    await link(join(root, 'skill'), join(root, 'skill/loop'));
    await link(join(root, 'gone'), join(root, 'skill/dangling.txt'));
    const dir = join(root, 'skill');
    const { resources, diagnostics } = await listResources(nodeFileSystem, dir, dir, LIMITS);
    expect(resources.map((r) => [r.path, r.size])).toEqual([
      ['docs-alias/guide.md', 5],
      ['guide-link.md', 5],
      ['references/guide.md', 5],
    ]);
    expect(diagnostics.map((d) => [d.code, d.file]).sort()).toEqual([
      ['RESOURCE_UNREADABLE', join(dir, 'dangling.txt')],
      ['RESOURCE_UNREADABLE', join(dir, 'linked')],
      ['RESOURCE_UNREADABLE', join(dir, 'one-link.txt')],
      ['SYMLINK_LOOP', join(dir, 'loop')],
    ]);
    expect(diagnostics.find((d) => d.file === join(dir, 'dangling.txt'))?.message).toContain('it does not exist');
    expect(diagnostics.find((d) => d.file === join(dir, 'linked'))?.message).toContain('outside the skill folder');
  });

  it(`lists at most ${MAX_RESOURCE_DEPTH} folder levels deep`, async () => {
    const deep = Array.from({ length: MAX_RESOURCE_DEPTH + 1 }, (_, i) => `d${i}`);
    await writeTree(root, {
      [`${deep.slice(0, MAX_RESOURCE_DEPTH).join('/')}/kept.txt`]: 'k',
      [`${deep.join('/')}/dropped.txt`]: 'd',
    });
    const { resources } = await listResources(nodeFileSystem, root, root, LIMITS);
    expect(resources.map((r) => r.name)).toEqual(['kept.txt']);
  });
});

describe('listResources (memfs faults)', () => {
  const tree = { '/s/SKILL.md': 'x', '/s/a.txt': 'a', '/s/sub/b.txt': 'b' };

  it('warns when the skill folder itself cannot be listed', async () => {
    const { fs } = faultyFs(tree, [{ method: 'readdir', path: '/s', code: 'EIO' }]);
    const { resources, diagnostics } = await listResources(fs, '/s', '/s', LIMITS);
    expect(resources).toEqual([]);
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'RESOURCE_UNREADABLE', file: '/s' })]);
    expect(diagnostics[0]?.message).toContain('EIO');
  });

  it('warns on an unreadable subfolder and lists the rest', async () => {
    const { fs } = faultyFs(tree, [{ method: 'readdir', path: '/s/sub', code: 'EACCES' }]);
    const { resources, diagnostics } = await listResources(fs, '/s', '/s', LIMITS);
    expect(resources.map((r) => r.path)).toEqual(['a.txt']);
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'RESOURCE_UNREADABLE', file: '/s/sub' })]);
  });

  it('warns when a symlinked folder cannot be resolved', async () => {
    const { fs, volume } = faultyFs(tree, [{ method: 'realpath', path: '/s/link', code: 'EACCES' }]);
    volume.symlinkSync('/s/sub', '/s/link');
    const { resources, diagnostics } = await listResources(fs, '/s', '/s', LIMITS);
    expect(resources.map((r) => r.path)).toEqual(['a.txt', 'sub/b.txt']);
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'RESOURCE_UNREADABLE', file: '/s/link' })]);
  });

  it('leaves out entries that are neither files nor folders', async () => {
    const { fs } = faultyFs(tree);
    const odd = {
      ...fs,
      stat: async (path: string) => {
        const stats = await fs.stat(path);
        return path.endsWith('a.txt')
          ? { ...stats, size: 1, mtimeMs: 0, isFile: () => false, isDirectory: () => false, isSymbolicLink: () => false }
          : stats;
      },
    };
    const { resources } = await listResources(odd, '/s', '/s', LIMITS);
    expect(resources.map((r) => r.path)).toEqual(['sub/b.txt']);
  });
});
