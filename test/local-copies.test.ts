/**
 * Local copies of bucket skills (src/storage/copies/), on the real disk in a
 * temp folder, with objects served from memory and faults injected through
 * the copy's file-system seam (ENOSPC, EACCES, a crash between two calls):
 * no disk is filled, no process killed.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CopyCodes, CopyError, diskFailure } from '../src/storage/copies/copy-error.js';
import { nodeCopyFileSystem, type CopyFileSystem } from '../src/storage/copies/copy-fs.js';
import { planCopy, unsafeNameProblem, type CopyLimits, type ListedFile } from '../src/storage/copies/copy-plan.js';
import { DEFAULT_ROOT_PREFIX, LEASE_LIFETIME_MS } from '../src/storage/copies/copy-root.js';
import { writeVersion } from '../src/storage/copies/copy-write.js';
import { LocalCopies, type LocalCopiesSettings } from '../src/storage/copies/local-copies.js';
import { CopyRoot } from '../src/storage/copies/copy-root.js';
import { refusedCopy } from './helpers/trust.js';

const LIMITS: CopyLimits = { maxFileSize: 100 * 1024, maxSkillSize: 500 * 1024 };
const encoder = new TextEncoder();

/** A bucket in memory: objects by path, each read counted. */
class Objects {
  readonly reads: string[] = [];
  private readonly objects = new Map<string, { bytes: Uint8Array; etag: string }>();
  private serial = 0;
  failing = new Map<string, Error>();

  text(path: string): string {
    return new TextDecoder().decode(this.objects.get(path)?.bytes);
  }

  put(path: string, text: string): void {
    this.objects.set(path, { bytes: encoder.encode(text), etag: `"e${++this.serial}"` });
  }

  read = async (path: string): Promise<{ bytes: Uint8Array; etag: string }> => {
    this.reads.push(path);
    const failure = this.failing.get(path);
    if (failure) throw failure;
    const object = this.objects.get(path);
    if (!object) throw Object.assign(new Error(`${path} does not exist`), { code: 'ENOENT', reason: `${path} does not exist` });
    return object;
  };

  /** The listing of the skill folder `source`, as a bucket gives it. */
  listed(source: string): ListedFile[] {
    return [...this.objects]
      .filter(([path]) => path.startsWith(`${source}/`))
      .map(([path, { bytes, etag }]) => ({ path: path.slice(source.length + 1), object: path, size: bytes.length, etag }));
  }
}

const SOURCE = 's3://team/prod/deploy';

function skillFiles(objects: Objects, source = SOURCE, script = 'print("v1")\n'): void {
  objects.put(`${source}/SKILL.md`, '---\nname: deploy\ndescription: Deploys.\n---\nRun python3 ${CLAUDE_SKILL_DIR}/scripts/run.py\n');
  objects.put(`${source}/scripts/run.py`, `#!/usr/bin/env python3\n${script}`);
  objects.put(`${source}/references/notes.md`, '# Notes\n');
}

/** Every call passes through `fault` first: it throws to inject a failure, or returns to let the call go on. */
function faulty(fault: (call: string, path: string) => void, base: CopyFileSystem = nodeCopyFileSystem): CopyFileSystem {
  const wrap =
    <A extends unknown[], R>(call: string, run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      fault(call, String(args[0]));
      return run(...args);
    };
  return {
    mkdir: wrap('mkdir', base.mkdir),
    writeNew: wrap('writeNew', base.writeNew),
    rename: wrap('rename', base.rename),
    removeTree: wrap('removeTree', base.removeTree),
    removeFile: wrap('removeFile', base.removeFile),
    removeEmpty: wrap('removeEmpty', base.removeEmpty),
    list: wrap('list', base.list),
    lstat: wrap('lstat', base.lstat),
    touch: wrap('touch', base.touch),
    read: wrap('read', base.read),
    alive: base.alive,
    host: base.host,
  };
}

function errno(code: string): Error {
  return Object.assign(new Error(`${code}: injected`), { code });
}

/** Every file under `folder`, relative, with its text. */
function tree(folder: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(folder, path).split(sep).join('/')] = readFileSync(path, 'utf8');
    }
  };
  walk(folder);
  return out;
}

/** The names in the copy root, leases aside. */
function versionsIn(root: string): string[] {
  return readdirSync(root)
    .filter((name) => name !== '.leases')
    .sort();
}

describe('local copies of bucket skills', () => {
  let work: string;
  let objects: Objects;
  const made: LocalCopies[] = [];
  const copies = (settings: Partial<LocalCopiesSettings> = {}): LocalCopies => {
    const instance = new LocalCopies({
      read: objects.read,
      root: join(work, 'root'),
      maxBytes: 64 * 1024 * 1024,
      limits: LIMITS,
      ...settings,
    });
    made.push(instance);
    return instance;
  };
  const plan = (source = SOURCE, limits = LIMITS) => planCopy('deploy', source, objects.listed(source), limits);

  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'local-copies-'));
    objects = new Objects();
    skillFiles(objects);
  });
  afterEach(async () => {
    await Promise.allSettled(made.splice(0).map((instance) => instance.close()));
    rmSync(work, { recursive: true, force: true });
  });

  it('copies SKILL.md and the resources into a folder named for the version: read-only, scripts with a shebang executable', async () => {
    const local = copies();
    const copy = await local.copy(plan());
    expect(copy.reused).toBe(false);
    expect(copy.folder).toBe(join(work, 'root', plan().name));
    expect(plan().name).toMatch(/^deploy-[0-9a-f]{12}$/);
    expect(tree(copy.folder)).toEqual({
      'SKILL.md': expect.stringContaining('scripts/run.py'),
      'scripts/run.py': '#!/usr/bin/env python3\nprint("v1")\n',
      'references/notes.md': '# Notes\n',
    });
    expect(statSync(join(copy.folder, 'scripts/run.py')).mode & 0o777).toBe(0o555);
    expect(statSync(join(copy.folder, 'SKILL.md')).mode & 0o777).toBe(0o444);
    expect(statSync(join(copy.folder, 'references/notes.md')).mode & 0o777).toBe(0o444);
    expect(local.bytes).toBe(plan().bytes);
    expect(local.pointedBy(SOURCE)).toBe(copy.version);
  });

  it('a second copy of an unchanged skill reads nothing and names the same folder; two at once read each object once', async () => {
    const local = copies();
    const [a, b] = await Promise.all([local.copy(plan()), local.copy(plan())]);
    expect(a.folder).toBe(b.folder);
    expect(objects.reads).toHaveLength(3);
    const again = await local.copy(plan());
    expect(again).toEqual({ ...a, reused: true });
    expect(objects.reads).toHaveLength(3);
  });

  it('an edited skill gets a new folder; the old one goes once the skill points to the new one', async () => {
    const local = copies();
    const first = await local.copy(plan());
    skillFiles(objects, SOURCE, 'print("v2")\n');
    const second = await local.copy(plan());
    expect(second.folder).not.toBe(first.folder);
    expect(readFileSync(join(second.folder, 'scripts/run.py'), 'utf8')).toContain('v2');
    expect(existsSync(first.folder)).toBe(false);
    expect(versionsIn(join(work, 'root'))).toEqual([second.version]);
  });

  it('a removed skill loses its folder (forget, keepOnly); close() removes the rest, and copies no more', async () => {
    const local = copies();
    const other = 's3://team/prod/other';
    skillFiles(objects, other);
    const kept = await local.copy(plan());
    const gone = await local.copy(planCopy('other', other, objects.listed(other), LIMITS));
    await local.keepOnly(new Set([SOURCE]));
    expect(existsSync(gone.folder)).toBe(false);
    expect(existsSync(kept.folder)).toBe(true);
    await local.forget(SOURCE);
    expect(existsSync(kept.folder)).toBe(false);
    await local.copy(plan());
    await local.close();
    await local.close();
    expect(versionsIn(join(work, 'root'))).toEqual([]);
    await expect(local.copy(plan())).rejects.toMatchObject({ code: CopyCodes.closed });
  });

  it('by default, a new folder of this process in the OS temp folder, mode 700, known before it exists and removed by close()', async () => {
    const local = copies({ root: undefined });
    const root = local.root.path;
    expect(root.startsWith(join(tmpdir(), `${DEFAULT_ROOT_PREFIX}${process.pid}-`))).toBe(true);
    expect(existsSync(root)).toBe(false);
    const copy = await local.copy(plan());
    expect(statSync(root).mode & 0o777).toBe(0o700);
    expect(copy.folder.startsWith(root + sep)).toBe(true);
    await local.close();
    expect(existsSync(root)).toBe(false);
  });

  it('keeps the copies within maxBytes: the least recently used version goes first, never the one just made', async () => {
    const names = ['a', 'b', 'c'];
    for (const name of names) skillFiles(objects, `s3://team/prod/${name}`);
    const planOf = (name: string) => planCopy(name, `s3://team/prod/${name}`, objects.listed(`s3://team/prod/${name}`), LIMITS);
    const size = planOf('a').bytes;
    const local = copies({ maxBytes: size * 2 });
    const a = await local.copy(planOf('a'));
    const b = await local.copy(planOf('b'));
    await local.copy(planOf('a')); // a is now the most recently used
    const c = await local.copy(planOf('c'));
    expect(existsSync(b.folder)).toBe(false);
    expect(existsSync(a.folder) && existsSync(c.folder)).toBe(true);
    expect(local.bytes).toBeLessThanOrEqual(size * 2);
    expect(local.pointedBy('s3://team/prod/b')).toBeUndefined();
    const tiny = copies({ maxBytes: 1, root: join(work, 'tiny') });
    const only = await tiny.copy(planOf('a'));
    expect(existsSync(only.folder)).toBe(true);
  });

  it('does not copy files over maxFileSize or past maxSkillSize, nor hostile names; SKILL.md always; the plan says why', async () => {
    objects.put(`${SOURCE}/assets/big.bin`, 'x'.repeat(2000));
    objects.put(`${SOURCE}/references/zz.md`, 'y'.repeat(900));
    for (const key of ['../escape.sh', '%2e%2e/x.sh', 'a\\..\\..\\b.sh', 'C:/x.sh', 'scripts/./x.sh', 'a//b.sh', 'bad\u202ename.sh']) {
      objects.put(`${SOURCE}/${key}`, 'echo owned');
    }
    const limits = { maxFileSize: 1500, maxSkillSize: 1000 };
    objects.put(`${SOURCE}/SKILL.md`, `---\nname: deploy\ndescription: d\n---\n${'z'.repeat(1800)}`);
    const limited = plan(SOURCE, limits);
    expect(limited.files.map((file) => file.path)).toEqual(['SKILL.md']);
    expect(Object.fromEntries(limited.skipped.map((skip) => [skip.path, skip.reason]))).toEqual({
      '../escape.sh': 'unsafe-name',
      '%2e%2e/x.sh': 'unsafe-name',
      'a\\..\\..\\b.sh': 'unsafe-name',
      'C:/x.sh': 'unsafe-name',
      'scripts/./x.sh': 'unsafe-name',
      'a//b.sh': 'unsafe-name',
      'bad\u202ename.sh': 'unsafe-name',
      'assets/big.bin': 'too-large',
      'references/notes.md': 'over-skill-size',
      'references/zz.md': 'over-skill-size',
      'scripts/run.py': 'over-skill-size',
    });
    expect(limited.skipped.find((skip) => skip.path === 'assets/big.bin')?.detail).toBe('not copied: over maxFileSize (1 KB)');
    const copy = await copies().copy(limited);
    expect(Object.keys(tree(copy.folder))).toEqual(['SKILL.md']);
    expect(copy.skipped).toEqual(limited.skipped);
    expect(readdirSync(work)).toEqual(['root']);
  });

  it('names a path that is not plain as unsafe, and accepts plain ones', () => {
    for (const bad of ['', '/etc/passwd', '..', 'a/../b', '%2E%2E', '..%2f', 'a\\b', 'a\u0000b', 'x:y', `${'n'.repeat(256)}.md`]) {
      expect(unsafeNameProblem(bad), bad).toBeDefined();
    }
    for (const good of ['SKILL.md', 'scripts/run.py', 'a b/c-d_e.f', '.hidden/ok', 'ünï/cödé.md'])
      expect(unsafeNameProblem(good), good).toBeUndefined();
  });

  it('never writes outside the partial folder, even for a plan made by hand', async () => {
    const root = new CopyRoot(nodeCopyFileSystem, join(work, 'root'));
    await root.prepare();
    const hostile = { ...plan(), files: [{ path: '../../outside.sh', object: `${SOURCE}/SKILL.md`, size: 10, etag: '"x"' }] };
    await expect(writeVersion({ root, fs: nodeCopyFileSystem, plan: hostile, read: objects.read, limits: LIMITS })).rejects.toThrow(
      /would leave/,
    );
    expect(readdirSync(work)).toEqual(['root']);
    expect(versionsIn(join(work, 'root'))).toEqual([]);
  });

  it('a full disk (ENOSPC) is a CopyError that says what to do; nothing partial stays, and the next copy works', async () => {
    let full = true;
    const local = copies({
      fs: faulty((call, path) => {
        if (full && call === 'writeNew' && path.endsWith('run.py')) throw errno('ENOSPC');
      }),
    });
    const failure = await local.copy(plan()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CopyError);
    expect(failure).toMatchObject({ code: CopyCodes.diskFull, skill: 'deploy' });
    expect((failure as Error).message).toMatch(
      /cannot copy skill "deploy" to the local disk: the disk holding .* is full \(ENOSPC\) while writing scripts\/run\.py: free space/,
    );
    expect(versionsIn(join(work, 'root'))).toEqual([]);
    full = false;
    expect((await local.copy(plan())).reused).toBe(false);
  });

  it('a root that cannot be made or written is COPY_ROOT_UNWRITABLE, tried again on the next copy', async () => {
    let denied = true;
    const local = copies({
      fs: faulty((call, path) => {
        if (denied && call === 'mkdir' && path === join(work, 'root')) throw errno('EACCES');
      }),
    });
    await expect(local.copy(plan())).rejects.toMatchObject({
      code: CopyCodes.rootUnwritable,
      message: expect.stringMatching(/set localCopies.root to a folder this process may write/),
    });
    denied = false;
    await expect(local.copy(plan())).resolves.toMatchObject({ reused: false });
    writeFileSync(join(work, 'file'), 'not a folder');
    await expect(copies({ root: join(work, 'file') }).copy(plan())).rejects.toMatchObject({ code: CopyCodes.rootUnwritable });
  });

  it('other disk failures and read failures say what failed', async () => {
    expect(diskFailure(errno('EIO'), '/r', 'x', 'writing a')).toMatchObject({
      code: CopyCodes.writeFailed,
      message: expect.stringContaining('writing a under /r failed (EIO'),
    });
    objects.failing.set(
      `${SOURCE}/references/notes.md`,
      Object.assign(new Error('x'), { reason: 'storage unavailable for s3://team/prod/deploy/references/notes.md: HTTP 503' }),
    );
    await expect(copies().copy(plan())).rejects.toMatchObject({
      code: CopyCodes.readFailed,
      message: expect.stringContaining('references/notes.md could not be read (storage unavailable'),
    });
    expect(versionsIn(join(work, 'root'))).toEqual([]);
  });

  describe('with signed hashes (trust): the bytes are hashed as read, and the very bytes hashed are written', () => {
    const sha = (text: string | Uint8Array) => createHash('sha256').update(text).digest('hex');
    /** The listing with the hash `signed` gives each path (undefined: the manifest does not list it). */
    const signedPlan = (signed: (path: string) => string | undefined, verify: 'enforce' | 'report' = 'enforce') =>
      planCopy(
        'deploy',
        SOURCE,
        objects.listed(SOURCE).map((file) => {
          const sha256 = signed(file.path);
          return sha256 === undefined ? file : { ...file, sha256 };
        }),
        LIMITS,
        verify,
      );
    const asSigned = (path: string) => sha(objects.text(`${SOURCE}/${path}`));
    const SCRIPT = 'scripts/run.py';

    it('writes a version whole as signed, named from the signed hashes, and finds it again with no read', async () => {
      const local = copies();
      const copy = await local.copy(signedPlan(asSigned));
      const reads = objects.reads.length;
      await expect(local.copy(signedPlan(asSigned))).resolves.toMatchObject({ folder: copy.folder, reused: true });
      expect(objects.reads).toHaveLength(reads);
      expect(tree(copy.folder)).toEqual(Object.fromEntries(objects.listed(SOURCE).map((file) => [file.path, objects.text(file.object)])));
      expect(copy).toMatchObject({ untrusted: [], skipped: [] });
      // Not the version an ETag-named copy of the same files has: a copy made without trust is never taken for a verified one.
      expect(copy.version).not.toBe(plan().name);
    });

    it('a resource changed after signing: nothing of the version is written, and the error names the file and what was read', async () => {
      const signed = signedPlan((path) => (path === SCRIPT ? sha('#!/usr/bin/env python3\nprint("as signed")\n') : asSigned(path)));
      const refused = await copies()
        .copy(signed)
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(CopyError);
      const body = objects.text(`${SOURCE}/${SCRIPT}`);
      expect(refused).toMatchObject({
        code: CopyCodes.unverified,
        untrusted: { path: SCRIPT, read: { sha256: sha(body), size: body.length } },
        message: expect.stringMatching(refusedCopy('deploy', String.raw`scripts/run\.py`)),
      });
      expect(versionsIn(join(work, 'root'))).toEqual([]);
      // The SKILL.md alike.
      const skill = signedPlan((path) => (path === 'SKILL.md' ? sha('another') : asSigned(path)));
      await expect(copies({ root: join(work, 'b') }).copy(skill)).rejects.toMatchObject({
        code: CopyCodes.unverified,
        untrusted: { path: 'SKILL.md' },
      });
      expect(versionsIn(join(work, 'b'))).toEqual([]);
    });

    it('a file the manifest does not list (added after signing) is not copied and the listing says so; a SKILL.md not listed refuses the copy', async () => {
      objects.put(`${SOURCE}/scripts/added.sh`, '#!/bin/sh\necho added\n');
      const signed = signedPlan((path) => (path === 'scripts/added.sh' ? undefined : asSigned(path)));
      expect(signed.skipped).toEqual([
        { path: 'scripts/added.sh', reason: 'unsigned', detail: "not copied: its library's signed manifest does not list it" },
      ]);
      const copy = await copies().copy(signed);
      expect(Object.keys(tree(copy.folder)).sort()).toEqual(['SKILL.md', 'references/notes.md', SCRIPT]);
      const unlisted = signedPlan((path) => (path === 'SKILL.md' ? undefined : asSigned(path)));
      await expect(copies({ root: join(work, 'b') }).copy(unlisted)).rejects.toMatchObject({
        code: CopyCodes.unverified,
        untrusted: { path: 'SKILL.md' },
        message: expect.stringContaining("SKILL.md: its library's signed manifest does not list it"),
      });
    });

    it('an object swapped after it was listed and before it is read is refused', async () => {
      const signed = signedPlan(asSigned);
      // Swapped before the read: the copy reads the new bytes, which are not the signed ones.
      objects.put(`${SOURCE}/${SCRIPT}`, '#!/bin/sh\necho swapped\n');
      await expect(copies().copy(signed)).rejects.toMatchObject({ code: CopyCodes.unverified, untrusted: { path: SCRIPT } });
      expect(versionsIn(join(work, 'root'))).toEqual([]);
    });

    it('an object swapped after it was read and hashed, before it is written, changes nothing written', async () => {
      const signed = signedPlan(asSigned);
      const good = objects.text(`${SOURCE}/${SCRIPT}`);
      // Swapped while the verified bytes are being written: the disk gets the bytes that were hashed.
      const swapping = faulty((call, path) => {
        if (call === 'writeNew' && path.endsWith('run.py')) objects.put(`${SOURCE}/${SCRIPT}`, '#!/bin/sh\necho swapped\n');
      });
      const copy = await copies({ root: join(work, 'b'), fs: swapping }).copy(signed);
      expect(readFileSync(join(copy.folder, SCRIPT), 'utf8')).toBe(good);
    });

    it("another process's version is used only once its files hash to the signed ones", async () => {
      const signed = signedPlan(asSigned);
      const owner = copies();
      const first = await owner.copy(signed);
      // Its owner lets go of it (as a process that ended would); then its script is changed: same size, other bytes.
      await owner.forget(SOURCE);
      mkdirSync(dirname(join(first.folder, SCRIPT)), { recursive: true });
      const script = join(first.folder, SCRIPT);
      const good = objects.text(`${SOURCE}/${SCRIPT}`);
      writeFileSync(script, good.replace('v1', 'v2'));
      const again = await copies().copy(signed);
      expect(again).toMatchObject({ version: first.version, reused: false });
      expect(readFileSync(join(again.folder, SCRIPT), 'utf8')).toBe(good);
    });

    it('report mode writes what is read, says which files are not as signed, and names the version from the bytes it holds', async () => {
      objects.put(`${SOURCE}/scripts/added.sh`, '#!/bin/sh\necho added\n');
      const reported = signedPlan(
        (path) => (path === SCRIPT ? sha('as signed') : path === 'scripts/added.sh' ? undefined : asSigned(path)),
        'report',
      );
      expect(reported.skipped).toEqual([]);
      const copy = await copies().copy(reported);
      const body = objects.text(`${SOURCE}/${SCRIPT}`);
      expect(readFileSync(join(copy.folder, SCRIPT), 'utf8')).toBe(body);
      expect(readFileSync(join(copy.folder, 'scripts/added.sh'), 'utf8')).toContain('echo added');
      expect([...copy.untrusted].sort((a, b) => a.path.localeCompare(b.path))).toEqual([
        { path: 'scripts/added.sh' },
        { path: SCRIPT, read: { sha256: sha(body), size: body.length } },
      ]);
      expect(copy.version).toBe(signedPlan(asSigned).name);
    });
  });

  it('a file that grew past maxFileSize since it was listed is not copied, and says so', async () => {
    const listed = plan();
    objects.put(`${SOURCE}/references/notes.md`, 'n'.repeat(LIMITS.maxFileSize + 1));
    const copy = await copies().copy(listed);
    expect(copy.skipped).toEqual([
      { path: 'references/notes.md', reason: 'too-large', detail: 'not copied: it grew past maxFileSize after it was listed' },
    ]);
    expect(existsSync(join(copy.folder, 'references', 'notes.md'))).toBe(false);
    expect(copy.version).not.toBe(listed.name);
  });

  it('a crash mid-copy leaves only a partial folder, never used, swept by the next process on that root', async () => {
    const root = join(work, 'root');
    // What a crashed process (pid 2^22 + 1: above Linux's pid_max) left: a partial folder with part of a version.
    const dead = `${nodeCopyFileSystem.host}~4194305~abcd1234`;
    mkdirSync(join(root, `.partial-${dead}-1`, 'scripts'), { recursive: true });
    writeFileSync(join(root, `.partial-${dead}-1`, 'SKILL.md'), 'half');
    mkdirSync(join(root, '.leases', 'deploy-000000000000'), { recursive: true });
    writeFileSync(join(root, '.leases', 'deploy-000000000000', dead), '');
    mkdirSync(join(root, 'deploy-000000000000'));
    // And one that stopped between writing and renaming, in this process.
    const local = copies({
      fs: faulty((call, path) => {
        if (call === 'rename' && path.includes('.partial-')) throw errno('EIO');
      }),
    });
    await expect(local.copy(plan())).rejects.toMatchObject({ code: CopyCodes.writeFailed });
    expect(versionsIn(root)).toEqual([]);
    const next = await copies().copy(plan());
    expect(tree(next.folder)['SKILL.md']).toContain('name: deploy');
    expect(versionsIn(root)).toEqual([next.version]);
  });

  it('two instances sharing a root: one copy of a version, a lease keeps it while the other uses it', async () => {
    const a = copies();
    const b = copies();
    const [fromA, fromB] = await Promise.all([a.copy(plan()), b.copy(plan())]);
    expect(fromA.folder).toBe(fromB.folder);
    expect(tree(fromA.folder)['scripts/run.py']).toContain('v1');
    expect(versionsIn(join(work, 'root'))).toEqual([fromA.version]);
    await a.close();
    expect(existsSync(fromB.folder)).toBe(true);
    const c = copies();
    const reads = objects.reads.length;
    expect(await c.copy(plan())).toMatchObject({ folder: fromB.folder, reused: true });
    expect(objects.reads).toHaveLength(reads);
    await b.close();
    await c.close();
    expect(existsSync(fromB.folder)).toBe(false);
  });

  it("another process's damaged version (a file of the wrong size) is put aside and copied again", async () => {
    const first = copies();
    const copy = await first.copy(plan());
    await first.forget(SOURCE);
    mkdirSync(copy.folder, { recursive: true });
    writeFileSync(join(copy.folder, 'SKILL.md'), 'cut');
    const again = await copies().copy(plan());
    expect(again).toMatchObject({ folder: copy.folder, reused: false });
    expect(tree(again.folder)['SKILL.md']).toContain('name: deploy');
  });

  it("a lease of another machine counts for a day after its last use; a dead process's lease not at all", async () => {
    let now = Date.now();
    const root = new CopyRoot(nodeCopyFileSystem, join(work, 'root'), () => now);
    await root.prepare();
    mkdirSync(join(work, 'root', '.leases', 'v'), { recursive: true });
    writeFileSync(join(work, 'root', '.leases', 'v', 'elsewhere~12~00ff00ff'), '');
    expect(await root.othersUse('v')).toBe(true);
    now += LEASE_LIFETIME_MS + 1000;
    expect(await root.othersUse('v')).toBe(false);
    writeFileSync(join(work, 'root', '.leases', 'v', `${nodeCopyFileSystem.host}~4194305~00ff00ff`), '');
    writeFileSync(join(work, 'root', '.leases', 'v', 'not-an-owner'), '');
    expect(await root.othersUse('v')).toBe(false);
    expect(readdirSync(join(work, 'root', '.leases', 'v'))).toEqual([]);
  });

  it('a lease taken while a version is being removed puts it back; a version already gone is no error', async () => {
    const root = join(work, 'root');
    let taker: LocalCopies | undefined;
    const local = copies({
      fs: faulty((call, path) => {
        // Another instance leases the version right after this one checked for leases, before the rename.
        if (call === 'rename' && path.startsWith(join(root, 'deploy-')) && taker === undefined) {
          taker = copies();
          writeFileSync(join(root, '.leases', relative(root, path), taker.root.owner), '');
        }
      }),
    });
    const copy = await local.copy(plan());
    await local.forget(SOURCE);
    expect(existsSync(join(copy.folder, 'SKILL.md'))).toBe(true);
    expect(readdirSync(join(root, '.leases', copy.version))).toEqual([taker?.root.owner]);
    const gone = copies();
    const again = await gone.copy(plan());
    rmSync(join(root, '.leases', copy.version, taker?.root.owner ?? ''));
    rmSync(again.folder, { recursive: true });
    await gone.forget(SOURCE);
    expect(existsSync(join(root, '.leases', copy.version))).toBe(false);
  });

  it("a lease folder another owner's remove() takes away between its mkdir and the lease's write is made again; the lease holds", async () => {
    // Seen in CI as a process that exited with ENOENT among four copying one version: another process swept a
    // dead owner's version and removed its then-empty lease folder just as this one was leasing it.
    const root = join(work, 'root');
    let taken = 0;
    const local = copies({
      fs: faulty((call, path) => {
        if (call === 'writeNew' && path.includes(`${sep}.leases${sep}`) && taken < 2) {
          taken++;
          rmdirSync(dirname(path));
        }
      }),
    });
    const copy = await local.copy(plan());
    expect(taken).toBe(2);
    expect(readdirSync(join(root, '.leases', copy.version))).toEqual([local.root.owner]);
    expect(tree(copy.folder)['SKILL.md']).toBeDefined();
    // A lease folder that keeps vanishing is a disk fault, said once the attempts are spent.
    const stubborn = copies({
      fs: faulty((call, path) => {
        if (call === 'writeNew' && path.includes(`${sep}.leases${sep}`)) rmSync(dirname(path), { recursive: true, force: true });
      }),
    });
    await expect(stubborn.copy(plan())).rejects.toMatchObject({ code: CopyCodes.writeFailed, message: expect.stringContaining('ENOENT') });
  });

  it('a version held by another live owner is never removed, even damaged: the copy says to remove it', async () => {
    const holder = copies();
    const copy = await holder.copy(plan());
    writeFileSync(join(copy.folder, 'extra-but-fine'), '');
    rmSync(join(copy.folder, 'references'), { recursive: true });
    await expect(copies().copy(plan())).rejects.toMatchObject({
      code: CopyCodes.writeFailed,
      message: expect.stringContaining('does not hold the files its name says; remove it'),
    });
    expect(existsSync(copy.folder)).toBe(true);
  });

  it('a disk that fails while an earlier copy is looked for is a CopyError naming the step', async () => {
    const local = copies({
      fs: faulty((call, path) => {
        if (call === 'lstat' && path.includes('deploy-')) throw errno('EIO');
      }),
    });
    await expect(local.copy(plan())).rejects.toMatchObject({
      code: CopyCodes.writeFailed,
      message: expect.stringContaining('looking for an earlier copy'),
    });
    const other = copies();
    const copy = await other.copy(plan());
    await other.forget(SOURCE);
    const checking = copies({
      fs: faulty((call, path) => {
        if (call === 'lstat' && path.endsWith('SKILL.md')) throw errno('EACCES');
      }),
    });
    mkdirSync(copy.folder, { recursive: true });
    await expect(checking.copy(plan())).rejects.toMatchObject({ code: CopyCodes.rootUnwritable });
  });

  it('edges: odd errors, a lease that vanishes while it is judged, a folder removed only when empty, close() reporting a failure', async () => {
    expect(diskFailure('plain text', '/r', undefined, 'x')).toMatchObject({
      code: CopyCodes.writeFailed,
      message: 'x under /r failed (EIO: plain text)',
    });
    writeFileSync(join(work, 'a-file'), '');
    await expect(nodeCopyFileSystem.removeEmpty(join(work, 'a-file'))).rejects.toMatchObject({ code: 'ENOTDIR' });
    const root = new CopyRoot(
      faulty((call, path) => {
        if (call === 'lstat' && path.includes('elsewhere~')) throw errno('ENOENT');
        if (call === 'list' && path.endsWith('broken')) throw errno('EIO');
      }),
      join(work, 'root'),
    );
    await root.prepare();
    mkdirSync(join(work, 'root', '.leases', 'v'), { recursive: true });
    writeFileSync(join(work, 'root', '.leases', 'v', 'elsewhere~12~00ff00ff'), '');
    expect(await root.othersUse('v')).toBe(false);
    await expect(root.othersUse('broken')).rejects.toMatchObject({ code: 'EIO' });
    const local = copies();
    await local.forget('s3://never/copied');
    await local.copy(plan());
    const failing = copies({
      fs: faulty((call, path) => {
        if (call === 'removeTree' && path.includes('.trash-')) throw errno('EBUSY');
      }),
    });
    await failing.copy(plan());
    await local.close();
    await expect(failing.close()).rejects.toMatchObject({
      code: CopyCodes.writeFailed,
      message: expect.stringContaining('removing the copies at close'),
    });
  });
});
