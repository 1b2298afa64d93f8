/**
 * The tamper matrix's pieces: one signed library, put in a local folder, an
 * npm package folder or a bucket (s3rver); the edits an attacker with write
 * access makes; and a transcript of everything a model and a user can see
 * (the system prompt, `ctx.skills`, every tool's answer to every probe), to
 * compare byte for byte with the same library as it was signed.
 */
import { expect, onTestFinished, vi } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runCli } from '../../src/cli/run.js';
import { getSkills, skillsMiddleware, type SkillsOptions } from '../../src/index.js';
import { cliAgainst } from './s3/cli.js';
import { makeBucket, s3Config, type TestBucket } from './s3/bucket.js';
import { callTool, compose, conversation, createContext, type StackContext } from './stack.js';
import { keyPair } from './trust.js';

/** The library as signed: every file of every skill, by its path in the place. */
export const LIBRARY: Readonly<Record<string, string>> = {
  'alpha/SKILL.md':
    '---\nname: alpha\ndescription: Alpha fills forms. Use for alpha work.\n---\n# Alpha\n\nBODY-alpha: run scripts/run.sh.\n',
  'alpha/scripts/run.sh': 'echo ALPHA-SCRIPT\n',
  'alpha/references/guide.md': '# ALPHA-GUIDE\n',
  'beta/SKILL.md': '---\nname: beta\ndescription: Beta reviews documents. Use for beta reviews.\n---\nBODY-beta\n',
  'beta/references/notes.md': 'BETA-NOTES\n',
  'group/gamma/SKILL.md': '---\nname: gamma\ndescription: Gamma plans releases. Use for gamma plans.\n---\nBODY-gamma\n',
};

/** What every tampered byte carries, so a transcript can be searched for it. */
export const TAMPERED = 'TAMPERED';

/** Where a library lives, and how a test reaches and edits it. */
export interface Place {
  kind: 'folder' | 'package' | 'bucket';
  /** What names this place in text (a temporary folder, a bucket's name): transcripts replace it with `<place>`. */
  marker: string;
  /** The middleware options that read it (directories or packages, cwd, s3). */
  options: Partial<SkillsOptions>;
  /** The argument `sisu-skills sign` takes for it. */
  signArg: string;
  /** The manifest's path as `read` and `write` take it (a package's sits at the package root, above its skills/). */
  manifest: string;
  write(path: string, text: string): Promise<void>;
  read(path: string): Promise<string>;
  remove(path: string): Promise<void>;
  /** Moves a skill folder (every file under `from`). */
  renameFolder(from: string, to: string): Promise<void>;
  /** Runs `sisu-skills` on this place (the bucket's SDK environment set). */
  cli(...argv: string[]): Promise<{ code: number; out: string; err: string }>;
  /** A link at `path` to `target` (relative); undefined for a bucket, which has none. */
  link?(path: string, target: string): Promise<void>;
}

let made = 0;

async function tempDir(label: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `mw-skills-tamper-${label}-`));
}

async function localCli(cwd: string, argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { cwd, out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A place on disk whose skills are under `root`; `options` reaches them. */
function diskPlace(kind: 'folder' | 'package', root: string, cwd: string, options: Partial<SkillsOptions>, signArg: string): Place {
  return {
    kind,
    marker: cwd,
    manifest: kind === 'package' ? '../skills.manifest.json' : 'skills.manifest.json',
    options,
    signArg,
    write: async (path, text) => {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    },
    read: (path) => readFile(join(root, path), 'utf8'),
    remove: (path) => rm(join(root, path), { recursive: true, force: true }),
    renameFolder: (from, to) => rename(join(root, from), join(root, to)),
    cli: (...argv) => localCli(cwd, argv),
    link: async (path, target) => {
      await rm(join(root, path), { force: true });
      await symlink(target, join(root, path));
    },
  };
}

export async function folderPlace(): Promise<Place> {
  const root = await tempDir(`folder-${++made}`);
  const place = diskPlace('folder', root, root, { directories: [root] }, root);
  for (const [path, text] of Object.entries(LIBRARY)) await place.write(path, text);
  return place;
}

/** An app whose node_modules holds @acme/lib, a package of skills under skills/; the manifest sits at the package root. */
export async function packagePlace(): Promise<Place> {
  const app = await tempDir(`package-${++made}`);
  const pkg = join(app, 'node_modules/@acme/lib');
  await mkdir(pkg, { recursive: true });
  await writeFile(join(pkg, 'package.json'), JSON.stringify({ name: '@acme/lib', version: '1.0.0' }));
  const place = diskPlace('package', join(pkg, 'skills'), app, { packages: ['@acme/lib'], cwd: app }, pkg);
  for (const [path, text] of Object.entries(LIBRARY)) await place.write(path, text);
  return place;
}

export async function bucketPlace(): Promise<Place> {
  const bucket: TestBucket = await makeBucket(`tamper-${++made}`);
  const prefix = 'lib/';
  const url = `s3://${bucket.name}/${prefix}`;
  const keys = new Set<string>();
  const put = async (path: string, text: string): Promise<void> => {
    await bucket.put(prefix + path, text);
    keys.add(path);
  };
  for (const [path, text] of Object.entries(LIBRARY)) await put(path, text);
  const get = async (path: string): Promise<string> => {
    const { GetObjectCommand } = await import('@aws-sdk/client-s3');
    const answer = await bucket.client.send(new GetObjectCommand({ Bucket: bucket.name, Key: prefix + path }));
    return (await answer.Body?.transformToString()) ?? '';
  };
  return {
    kind: 'bucket',
    marker: bucket.name,
    manifest: 'skills.manifest.json',
    // A check a second, so a test that waits for a change waits little.
    options: { directories: [url], s3: s3Config(bucket.endpoint), refresh: 200, storageWait: 10_000 },
    signArg: url,
    write: put,
    read: get,
    remove: async (path) => {
      await bucket.remove(prefix + path);
      keys.delete(path);
    },
    renameFolder: async (from, to) => {
      for (const path of [...keys].filter((key) => key.startsWith(`${from}/`))) {
        await put(`${to}${path.slice(from.length)}`, await get(path));
        await bucket.remove(prefix + path);
        keys.delete(path);
      }
    },
    cli: (...argv) => cliAgainst(bucket.endpoint, ...argv),
  };
}

/** Sign `place` with test key pair `n` (written to a private folder), with more sign arguments if given. */
export async function sign(place: Place, n = 0, ...more: string[]): Promise<void> {
  const folder = await tempDir('keys');
  const key = join(folder, `k${n}.key`);
  await writeFile(key, keyPair(n).privatePem, { mode: 0o600 });
  const run = await place.cli('sign', place.signArg, '--key', key, ...more);
  if (run.code !== 0) throw new Error(`sign failed: ${run.err}`);
}

/** The middleware options for `place` with `trust` (key pair 0 trusted) and `extra`. */
export function trusted(place: Place, extra: Partial<SkillsOptions> = {}): SkillsOptions {
  return { ...place.options, rankInstructions: false, trust: { keys: [keyPair(0).publicPem] }, ...extra } as SkillsOptions;
}

export type Call = { tool: string; args: Record<string, unknown> };

/** Every probe: each skill activated, each file read (signed or not), searches that name each skill. */
export const PROBES: readonly Call[] = [
  ...['alpha', 'beta', 'gamma'].map((name) => ({ tool: 'use_skill', args: { skill_name: name } })),
  ...[
    ['alpha', 'scripts/run.sh'],
    ['alpha', 'references/guide.md'],
    ['alpha', 'scripts/added.sh'],
    ['alpha', 'SKILL.md'],
    ['beta', 'references/notes.md'],
  ].map(([name, path]) => ({ tool: 'read_skill_resource', args: { skill_name: name, path } })),
  { tool: 'find_skills', args: { query: 'alpha forms' } },
  { tool: 'find_skills', args: { query: 'beta reviews', limit: 20 } },
];

/** One request: what the model is sent and can call, and what each probe answers. */
export interface Turn {
  system: string;
  /** The skills `ctx.skills` lists, by name. */
  skills: string[];
  answers: string[];
}

/** The trust diagnostics a request logged: `code file` each. */
function trustDiagnostics(ctx: StackContext): string[] {
  return ctx.log.entries.flatMap((entry) => {
    const data = entry.args[1] as { code?: unknown; file?: unknown } | undefined;
    const code = typeof data?.code === 'string' ? data.code : '';
    return /^(MANIFEST_|UNTRUSTED_SKILL)/.test(code) ? [`${code} ${String(data?.file)}`] : [];
  });
}

/** Runs requests on one middleware: each sends `text` then every probe. Returns the turns and every trust diagnostic logged. */
export class Session {
  readonly middleware: ReturnType<typeof skillsMiddleware>;
  readonly diagnostics: string[] = [];
  /** Every log entry of every request. */
  readonly log: unknown[] = [];

  /** `marker`: the place's name in text, replaced by `<place>` in the turns, so two places' transcripts compare. */
  constructor(
    options: SkillsOptions,
    private readonly marker: string,
  ) {
    this.middleware = skillsMiddleware(options);
    this.inBucket = (options.directories ?? []).some((directory) => directory.includes('://'));
  }

  private readonly inBucket: boolean;

  private plain(text: string): string {
    // A bucket skill runs from its local copy, under this middleware's own copy root: named `<copies>/<skill>` here.
    const copies = this.copyRoot();
    const local =
      copies === undefined ? text : text.replace(new RegExp(`${escaped(copies)}/([a-z0-9-]+)-[0-9a-f]{12}`, 'g'), '<copies>/$1');
    return local.split(this.marker).join('<place>');
  }

  /** The root of the bucket skills' local copies, when the place is a bucket. */
  private copyRoot(): string | undefined {
    return this.inBucket ? this.middleware.localRoots().at(-1) : undefined;
  }

  /** Every byte under the copy root (a bucket's local copies), as text: what a script run from them could meet. */
  copiedText(): string {
    const root = this.copyRoot();
    if (root === undefined) return '';
    const texts: string[] = [];
    const walk = (folder: string): void => {
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.isFile()) texts.push(readFileSync(path, 'utf8'));
      }
    };
    walk(root);
    return texts.join('\n');
  }

  async turn(text = 'hello', probes: readonly Call[] = PROBES): Promise<Turn> {
    const ctx = createContext({ messages: conversation(text) });
    await compose([this.middleware])(ctx);
    const answers: string[] = [];
    for (const call of probes) answers.push(ctx.tools.get(call.tool) ? await callTool(ctx, call.tool, call.args) : `(${call.tool} absent)`);
    this.diagnostics.push(...trustDiagnostics(ctx));
    this.log.push(...ctx.log.entries);
    return {
      system: this.plain(ctx.messages.find((m) => m.role === 'system')?.content ?? ''),
      skills: getSkills(ctx)?.skills.map((skill) => skill.metadata.name) ?? [],
      answers: answers.map((answer) => this.plain(answer)),
    };
  }

  close(): Promise<void> {
    return this.middleware.close();
  }
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A Session on `place` under trust (key pair 0) with `extra` options, closed when the test ends. */
export function trustedSession(place: Place, extra: Partial<SkillsOptions> = {}): Session {
  const made = new Session(trusted(place, extra), place.marker);
  onTestFinished(() => made.close());
  return made;
}

/**
 * On a fake clock (Date), two days on, a day at a time, asking `live` at each step: the whole library
 * (alpha, beta, gamma) is served the first day. The turn on the second day, for a manifest of 2 days.
 */
export async function turnTwoDaysOn(live: Session): Promise<Turn> {
  const day = 86_400_000;
  expect((await live.turn()).skills).toEqual(['alpha', 'beta', 'gamma']);
  vi.setSystemTime(Date.now() + day);
  expect((await live.turn()).skills).toEqual(['alpha', 'beta', 'gamma']);
  vi.setSystemTime(Date.now() + day);
  return live.turn();
}
