/**
 * Type test against the real host: a strict TypeScript SISU app, compiled
 * with SISU's own published `.d.ts` from ../shared/sisu and our package from
 * src/index.ts, by compile-app.mjs in a process of its own. The app's files
 * are checked; src/ itself is checked by `npm run typecheck`, whose tsconfig
 * must hold the app's settings. Nothing here is a copy of SISU's types, so a drift between
 * our structural host types and SISU's shows up as a compile error.
 *
 * SISU is reached by path from a tsconfig generated into a temporary folder
 * (never from package.json or the repo tsconfig), so `npm ci` and
 * `npm run typecheck` work without ../shared. The README's Usage section and
 * docs/usage.md (the usage moved out of the README) are compiled the same way,
 * each ```ts block as its own module; a later block may use the README's first
 * block's `app` (declared for it as SISU's `Agent`).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWith } from '../helpers/needs-shared.js';
import { SISU_MODULES } from '../helpers/shared.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The app a SISU user writes. Every `@ts-expect-error` must be needed: an unused one is itself an error. */
const APP = `
import {
  Agent, compose, createCtx, createEmbeddingsClient, execute,
  type Ctx, type EmbeddingsProvider, type LLM, type Middleware, type Tool, type ToolContext,
} from '@sisu-ai/core';
import { openAIEmbeddings } from '@sisu-ai/adapter-openai';
import { ollamaEmbeddings } from '@sisu-ai/adapter-ollama';
import { conversationBuffer, inputToMessage } from '@sisu-ai/mw-conversation-buffer';
import { errorBoundary } from '@sisu-ai/mw-error-boundary';
import { registerTools } from '@sisu-ai/mw-register-tools';
import { iterativeToolCalling, toolCalling } from '@sisu-ai/mw-tool-calling';
import { traceViewer } from '@sisu-ai/mw-trace-viewer';
import {
  createFindSkillsTool,
  createReadResourceTool,
  createUseSkillTool,
  discoverSkills,
  getSkills,
  skillsMiddleware,
  type SkillsState,
} from '@sisu-ai/mw-skills';

const directories = ['./skills'];
const skills = skillsMiddleware({ directories });

// The README's first line of usage.
new Agent().use(skillsMiddleware({ directories }));

// The whole stack, skills before and after inputToMessage, with SISU's own middleware around it.
const app = new Agent()
  .use(errorBoundary(async (error, ctx) => {
    ctx.log.error('failed', error);
  }))
  .use(traceViewer({ dir: 'traces' }))
  .use(skills)
  .use(inputToMessage)
  .use(conversationBuffer({ window: 12 }))
  .use(skillsMiddleware({ directories, always: ['house-style'], autoActivate: { threshold: 0.3, maxSkills: 1 }, watch: true }))
  .use(execute);
const handle: (ctx: Ctx) => Promise<void> = app.handler();
new Agent().use(skills).use(toolCalling);
new Agent().use(skills).use(iterativeToolCalling);

// SISU's embeddings providers, as they are and with settings: no cast.
declare const provider: EmbeddingsProvider;
new Agent().use(skillsMiddleware({ directories, embeddings: provider }));
new Agent().use(skillsMiddleware({ directories, embeddings: openAIEmbeddings({ model: 'text-embedding-3-small' }) }));
const ollama = { provider: ollamaEmbeddings({ model: 'nomic-embed-text' }), model: 'nomic-embed-text', queryTimeoutMs: 300 };
new Agent().use(skillsMiddleware({ directories, embeddings: ollama }));
new Agent().use(skillsMiddleware({ directories, embeddings: createEmbeddingsClient({ baseUrl: 'http://127.0.0.1:8080', model: 'm' }) }));

// As SISU's own Middleware type, in core's compose, and called with a Ctx from createCtx.
const asMiddleware: Middleware = skills;
const composed = compose<Ctx>([skills, asMiddleware, execute]);
declare const model: LLM;
const ctx: Ctx = createCtx({ model, input: 'hello' });
await skills(ctx, async () => {});
await composed(ctx);
await handle(ctx);

// getSkills on SISU's own Ctx.
const report: Middleware = async (c, next) => {
  const state: SkillsState | undefined = getSkills(c);
  c.log.info('skills available', state?.skills.map((s) => s.metadata.name));
  await next();
  c.log.info('skills used', state?.activated);
};
app.use(report);

// The standalone tools, typed as SISU's Tool and registered with registerTools, or by hand.
const { skills: found } = await discoverSkills({ directories });
const tools: Tool[] = [createUseSkillTool(found), createReadResourceTool(found), createFindSkillsTool(found)];
new Agent().use(registerTools(tools)).use(registerTools([createUseSkillTool(found)])).use(execute);
ctx.tools.register(createReadResourceTool(found, { maxFileSize: 64 * 1024 }));

// What SISU's execute hands a tool: its ToolContext, not the request's ctx.
declare const toolCtx: ToolContext;
const useSkill: Tool = createUseSkillTool(found);
const answer: Promise<unknown> = useSkill.handler({ skill_name: 'explain' }, toolCtx);
await answer;
await skills.close();

// Negative cases: each line must fail to compile.
// @ts-expect-error an unknown option is a compile error, not a silent no-op
skillsMiddleware({ directories, catalogBudgett: 4000 });
// @ts-expect-error directories is a list of folders, not one string
skillsMiddleware({ directories: './skills' });
// @ts-expect-error an embeddings provider embeds lists of texts, not one text
skillsMiddleware({ directories, embeddings: { embed: async (text: string) => [[text.length]] } });
// @ts-expect-error cacheTtl is a number of milliseconds
skillsMiddleware({ directories, cacheTtl: '5m' });
// @ts-expect-error the tools take loaded skills, not a folder
createUseSkillTool('./skills');
// @ts-expect-error getSkills is undefined until the skills middleware ran
getSkills(ctx).activated;
// @ts-expect-error SISU's use() really checks the ctx: a middleware needing more than Ctx does not fit
new Agent().use(async (c: Ctx & { tenant: string }, next: () => Promise<void>) => { c.log.info(c.tenant); await next(); });
`;

/** What README blocks after the first may use from the first: its `app`, typed as SISU's Agent. */
const README_GLOBALS = `
import type { Agent } from '@sisu-ai/core';
declare global {
  const app: Agent;
}
`;

/** The ```ts blocks of a markdown text, in order. */
function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```(?:ts|typescript)\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
}

/** The ```ts blocks of README.md's "## Usage" section, then every one of docs/usage.md, in order. */
function readmeUsageBlocks(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Usage\n');
  if (start < 0) return [];
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...tsBlocks(section), ...tsBlocks(readFileSync(join(ROOT, 'docs', 'usage.md'), 'utf8'))];
}

/** A strict app's compiler settings: the repo's own, which `npm run typecheck` checks src/ with. */
const APP_SETTINGS = {
  target: 'ES2022',
  module: 'ESNext',
  moduleResolution: 'Bundler',
  lib: ['ES2022'],
  types: ['node'],
  strict: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  isolatedModules: true,
  esModuleInterop: true,
  skipLibCheck: true,
};

interface Compiled {
  dir: string;
  /** Every file the program read, as the compiler named it. */
  sourceFiles: string[];
  /** Problems per root file name ("(other)" for the rest), each as "file:line:col TSnnnn message". */
  problems: Map<string, string[]>;
}

const exec = promisify(execFile);

/** Writes `files` and their tsconfig into a new folder and compiles them with compile-app.mjs. */
async function compile(files: Record<string, string>): Promise<Compiled> {
  const dir = mkdtempSync(join(tmpdir(), 'mw-skills-real-types-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  // The repo's compiler settings, plus paths: SISU from ../shared/sisu, our package from src (no build needed).
  const config = {
    compilerOptions: {
      ...APP_SETTINGS,
      moduleDetection: 'force',
      typeRoots: [join(ROOT, 'node_modules/@types')],
      noEmit: true,
      paths: {
        '@sisu-ai/mw-skills': [join(ROOT, 'src/index.ts')],
        '@sisu-ai/*': [join(SISU_MODULES, '@sisu-ai/*/dist/index.d.ts')],
      },
    },
    files: Object.keys(files),
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config, null, 2));
  const script = fileURLToPath(new URL('compile-app.mjs', import.meta.url));
  const { stdout } = await exec(process.execPath, [script, dir], { maxBuffer: 64 * 1024 * 1024 });
  const result = JSON.parse(stdout) as { sourceFiles: string[]; problems: Record<string, string[]> };
  return { dir, sourceFiles: result.sourceFiles, problems: new Map(Object.entries(result.problems)) };
}

describeWith('sisu', "types against SISU's real .d.ts (../shared/sisu)", () => {
  const usage = readmeUsageBlocks();
  const readmeFiles = Object.fromEntries(usage.map((code, i) => [`readme-usage-${i + 1}.ts`, code]));
  let compiled: Compiled;
  beforeAll(async () => {
    compiled = await compile({ 'app.ts': APP, 'readme-globals.d.ts': README_GLOBALS, ...readmeFiles });
  }, 120_000);
  afterAll(() => {
    if (compiled) rmSync(compiled.dir, { recursive: true, force: true });
  });

  it('reads SISU from its published .d.ts and our package from src', () => {
    // Real paths on both sides: the compiler follows links (../shared may be one).
    const files = compiled.sourceFiles.map((f) => realpathSync(f));
    expect(files).toContain(realpathSync(join(SISU_MODULES, '@sisu-ai/core/dist/types.d.ts')));
    expect(files).toContain(realpathSync(join(SISU_MODULES, '@sisu-ai/mw-register-tools/dist/index.d.ts')));
    expect(files).toContain(realpathSync(join(ROOT, 'src/index.ts')));
    // The peer named @sisu-ai/mw-skills in ../shared/sisu is SISU's own middleware, not ours.
    expect(files.some((f) => f.includes('/@sisu-ai/mw-skills/'))).toBe(false);
  });

  it('a strict SISU app using the middleware, getSkills and the standalone tools compiles, and each wrong use fails', () => {
    expect(compiled.problems.get('app.ts') ?? []).toEqual([]);
  });

  it("our source is type-checked under the app's strict settings: npm run typecheck's tsconfig has every one of them", () => {
    expect(compiled.problems.get('(other)') ?? []).toEqual([]);
    // Plain JSON (no comments in it), read without loading the compiler into the worker.
    const repo = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as {
      compilerOptions: Record<string, unknown>;
      include: string[];
    };
    expect(repo.include).toContain('src');
    const lower = (value: unknown): unknown => (typeof value === 'string' ? value.toLowerCase() : value);
    for (const [option, value] of Object.entries(APP_SETTINGS))
      expect([option, JSON.stringify(repo.compilerOptions[option], (_, v: unknown) => lower(v))]).toEqual([
        option,
        JSON.stringify(value, (_, v: unknown) => lower(v)),
      ]);
  });

  it("README's Usage code and docs/usage.md's compile under tsc --strict against the real host", () => {
    expect(usage.length).toBeGreaterThan(0);
    const problems = ['readme-globals.d.ts', ...Object.keys(readmeFiles)].flatMap((name) => compiled.problems.get(name) ?? []);
    expect(problems).toEqual([]);
  });
});
