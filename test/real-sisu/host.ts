/**
 * The real SISU for tests: SISU's own compiled packages in ../shared/sisu
 * (next to the repo), loaded by file URL. Never found through package.json or
 * tsconfig, so a fresh clone without it still installs, typechecks and tests:
 * `describeSisu` then skips, saying why.
 *
 * The interfaces below describe only what the tests touch. They are ours on
 * purpose (no `import type` from ../shared): `npm run typecheck` must work
 * without the folder. The real-types test checks our package against SISU's
 * own .d.ts; these only have to be true to the runtime.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll } from 'vitest';
import {
  startAnthropicServer,
  startOpenAIServer,
  type Script,
  type ScriptedRequest,
  type ScriptedServer,
  type ServerOptions,
} from '../../demo/scripted-model.mjs';
import { recordingLogger, type RecordingLogger } from '../helpers/logger.js';
import { describeWith } from '../helpers/needs-shared.js';
import { hasShared, SISU_MODULES, SISU_ROOT, SISU_SKILLS, skipNote } from '../helpers/shared.js';

export { SISU_ROOT, SISU_SKILLS } from '../helpers/shared.js';

export const sisuPresent = hasShared('sisu');

/** `describe` when the real SISU is here; otherwise a skipped suite whose name says why (needs-shared.ts). */
export function describeSisu(name: string, body: () => void): void {
  describeWith('sisu', name, body);
}

// ---------------------------------------------------------------------------
// SISU's shapes, as far as the tests use them

export interface SisuToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

export type SisuMessage =
  | { role: 'system'; content: string; name?: string }
  | { role: 'user'; content: string; name?: string }
  | { role: 'assistant'; content: string; name?: string; tool_calls?: SisuToolCall[] }
  | { role: 'tool'; content: string; tool_call_id: string; name?: string };

export interface SisuLogger {
  debug(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  span?(name: string, attrs?: Record<string, unknown>): void;
}

export interface SisuLLM {
  name: string;
  capabilities: { functionCall?: boolean; streaming?: boolean };
  generate(messages: SisuMessage[], opts?: Record<string, unknown>): Promise<unknown>;
}

/** What `execute` hands a tool handler: not the request's ctx. */
export interface SisuToolContext {
  readonly memory: unknown;
  readonly signal: AbortSignal;
  readonly log: SisuLogger;
  readonly model: SisuLLM;
  readonly deps?: Record<string, unknown>;
}

export interface SisuTool {
  name: string;
  description?: string;
  schema: unknown;
  // Method syntax: parameters compare bivariantly, so tools with narrower args fit.
  handler(args: never, ctx: SisuToolContext): Promise<unknown>;
}

export interface SisuToolRegistry {
  list(): SisuTool[];
  get(name: string): SisuTool | undefined;
  register(tool: SisuTool): void;
}

export interface SisuCtx {
  input?: string;
  messages: SisuMessage[];
  model: SisuLLM;
  tools: SisuToolRegistry;
  memory: unknown;
  stream: { write(token: string): void; end(): void };
  state: Record<string, unknown>;
  signal: AbortSignal;
  log: SisuLogger;
}

export type SisuNext = () => Promise<void>;
export type SisuMiddleware = (ctx: SisuCtx, next: SisuNext) => void | Promise<void>;

export interface SisuAgent {
  use(middleware: SisuMiddleware): SisuAgent;
  handler(): (ctx: SisuCtx, next?: SisuNext) => Promise<void>;
}

export interface SisuExecuteResult {
  text: string;
  rounds: number;
  toolExecutions: Array<{ canonicalName: string; args: unknown; result: unknown }>;
}

export interface SisuCore {
  Agent: new () => SisuAgent;
  createCtx(options: {
    model: SisuLLM;
    input?: string;
    systemPrompt?: string;
    logLevel?: 'debug' | 'info' | 'warn' | 'error';
    signal?: AbortSignal;
    state?: Record<string, unknown>;
  }): SisuCtx;
  compose(stack: SisuMiddleware[]): (ctx: SisuCtx, next?: SisuNext) => Promise<void>;
  execute: SisuMiddleware;
  executeWith(options: { strategy?: 'single' | 'iterative'; maxRounds?: number }): SisuMiddleware;
  inputToMessage: SisuMiddleware;
  getExecutionResult(ctx: SisuCtx): SisuExecuteResult | undefined;
}

export type SisuErrorHandler = (error: unknown, ctx: SisuCtx, next: SisuNext) => Promise<void>;

export interface SisuHost {
  /** Where the packages were loaded from. */
  root: string;
  core: SisuCore;
  openAIAdapter(options: { model: string; apiKey?: string; baseUrl?: string }): SisuLLM;
  anthropicAdapter(options: { model: string; apiKey?: string; baseUrl?: string; maxRetries?: number }): SisuLLM;
  errorBoundary(onError: SisuErrorHandler): SisuMiddleware;
  traceViewer(options?: { enable?: boolean; path?: string; dir?: string; json?: boolean; html?: boolean }): SisuMiddleware;
  conversationBuffer(options?: { window?: number }): SisuMiddleware;
  registerTools(tools: SisuTool[], options?: { aliases?: Record<string, string> }): SisuMiddleware;
  toolCalling: SisuMiddleware;
  iterativeToolCalling: SisuMiddleware;
}

function importPackage<T>(name: string): Promise<T> {
  return import(pathToFileURL(path.join(SISU_MODULES, name, 'dist', 'index.js')).href) as Promise<T>;
}

let loading: Promise<SisuHost> | undefined;

/** SISU's packages, loaded once per worker (test files share its modules: vitest.config.ts). Call only inside `describeSisu`. */
export function loadSisu(): Promise<SisuHost> {
  loading ??= (async () => {
    if (!sisuPresent) throw new Error(`SISU ${skipNote('sisu')}`);
    const [core, openai, anthropic, boundary, trace, buffer, register, calling] = await Promise.all([
      importPackage<SisuCore>('@sisu-ai/core'),
      importPackage<Pick<SisuHost, 'openAIAdapter'>>('@sisu-ai/adapter-openai'),
      importPackage<Pick<SisuHost, 'anthropicAdapter'>>('@sisu-ai/adapter-anthropic'),
      importPackage<Pick<SisuHost, 'errorBoundary'>>('@sisu-ai/mw-error-boundary'),
      importPackage<Pick<SisuHost, 'traceViewer'>>('@sisu-ai/mw-trace-viewer'),
      importPackage<Pick<SisuHost, 'conversationBuffer'>>('@sisu-ai/mw-conversation-buffer'),
      importPackage<Pick<SisuHost, 'registerTools'>>('@sisu-ai/mw-register-tools'),
      importPackage<Pick<SisuHost, 'toolCalling' | 'iterativeToolCalling'>>('@sisu-ai/mw-tool-calling'),
    ]);
    return {
      root: SISU_ROOT,
      core,
      openAIAdapter: openai.openAIAdapter,
      anthropicAdapter: anthropic.anthropicAdapter,
      errorBoundary: boundary.errorBoundary,
      traceViewer: trace.traceViewer,
      conversationBuffer: buffer.conversationBuffer,
      registerTools: register.registerTools,
      toolCalling: calling.toolCalling,
      iterativeToolCalling: calling.iterativeToolCalling,
    };
  })();
  return loading;
}

// ---------------------------------------------------------------------------
// SISU's skill packages, installed the way an app gets them

export interface InstalledSkills {
  /** The app folder (its `node_modules/@sisu-ai/` holds the packages). */
  appDir: string;
  /** `<appDir>/node_modules/@sisu-ai/<package>` for each installed package, in the order asked. */
  directories: string[];
  remove(): void;
}

/**
 * Copies SISU's skill packages (`skill-code-review`, ...) into
 * `<tmp>/node_modules/@sisu-ai/`, as `npm install` leaves them, so the
 * wiring of SISU's examples/openai-skills (directories under
 * `process.cwd()/node_modules/@sisu-ai/`) can be used as written.
 * Copies, not links: an installed package is a real folder.
 */
export async function installSisuSkills(packages?: readonly string[]): Promise<InstalledSkills> {
  const available = readdirSync(SISU_SKILLS).filter((name) => existsSync(path.join(SISU_SKILLS, name, 'SKILL.md')));
  const wanted = packages ?? available;
  for (const name of wanted) {
    if (!available.includes(name)) throw new Error(`no SISU skill package ${name} in ${SISU_SKILLS} (have: ${available.join(', ')})`);
  }
  const appDir = mkdtempSync(path.join(os.tmpdir(), 'sisu-app-'));
  const scope = path.join(appDir, 'node_modules', '@sisu-ai');
  await mkdir(scope, { recursive: true });
  const directories = wanted.map((name) => {
    const target = path.join(scope, name);
    cpSync(path.join(SISU_SKILLS, name), target, {
      recursive: true,
      // What a published package holds: no nested node_modules.
      filter: (source) => path.basename(source) !== 'node_modules',
    });
    return target;
  });
  return { appDir, directories, remove: () => rmSync(appDir, { recursive: true, force: true }) };
}

// ---------------------------------------------------------------------------
// The two providers, each a scripted server behind SISU's real adapter

export interface Provider {
  name: 'openai' | 'anthropic';
  start(script: Script, options?: ServerOptions): Promise<ScriptedServer>;
  /** SISU's real adapter for this provider, pointed at `server`. */
  model(host: SisuHost, server: ScriptedServer): SisuLLM;
}

export const PROVIDERS: readonly Provider[] = [
  {
    name: 'openai',
    start: startOpenAIServer,
    model: (host, server) => host.openAIAdapter({ model: 'gpt-scripted', apiKey: 'test-key', baseUrl: server.url }),
  },
  {
    name: 'anthropic',
    start: startAnthropicServer,
    // No retries: a 400 from the protocol checks must fail the run at once.
    model: (host, server) => host.anthropicAdapter({ model: 'claude-scripted', apiKey: 'test-key', baseUrl: server.url, maxRetries: 0 }),
  },
];

// ---------------------------------------------------------------------------
// Small pieces every scenario uses

/** A ctx from SISU's own createCtx, logging into a recorder (its own console logger would print). */
export function createCtx(
  host: SisuHost,
  model: SisuLLM,
  init: { input?: string; systemPrompt?: string } = {},
): SisuCtx & { log: RecordingLogger } {
  const ctx = host.core.createCtx({ model, systemPrompt: 'You are a careful coding assistant.', logLevel: 'error', ...init });
  const log = recordingLogger();
  ctx.log = log;
  return Object.assign(ctx, { log });
}

export interface RealSisu {
  /** SISU's packages, loaded in the suite's beforeAll: read it inside a test. */
  readonly host: SisuHost;
  /** Starts `provider`'s scripted server; every server a test starts is closed after it. */
  start(provider: Provider, script: Script, options?: ServerOptions): Promise<ScriptedServer>;
}

/**
 * The hooks every real-SISU suite needs (load SISU once, close the test's
 * servers), registered by the calling suite: call it in a `describeSisu` body.
 */
export function realSisu(): RealSisu {
  let host: SisuHost | undefined;
  const servers: ScriptedServer[] = [];
  beforeAll(async () => {
    host = await loadSisu();
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return {
    get host(): SisuHost {
      if (!host) throw new Error('realSisu: read host inside a test, after beforeAll');
      return host;
    },
    async start(provider, script, options) {
      const server = await provider.start(script, options);
      servers.push(server);
      return server;
    },
  };
}

/** Where the skills middleware stands: after inputToMessage and conversationBuffer, or before them (SISU's example order). */
export type Placement = 'after' | 'before';

/** inputToMessage, conversationBuffer({ window }) and `skillsMw` in the order `placement` says, then execute. */
export function placedStack(host: SisuHost, placement: Placement, skillsMw: SisuMiddleware, window: number): SisuMiddleware[] {
  const input = [host.core.inputToMessage, host.conversationBuffer({ window })];
  return placement === 'after' ? [...input, skillsMw, host.core.execute] : [skillsMw, ...input, host.core.execute];
}

/** Runs `stack` on `ctx` as one SISU Agent. */
export async function runAgent(host: SisuHost, stack: readonly SisuMiddleware[], ctx: SisuCtx): Promise<void> {
  const agent = new host.core.Agent();
  for (const mw of stack) agent.use(mw);
  await agent.handler()(ctx);
}

export interface SkillSpec {
  name: string;
  description?: string;
  /** The markdown after the frontmatter. */
  body?: string;
  /** More frontmatter lines, e.g. `disable-model-invocation: true`. */
  frontmatter?: string;
  /** Other files, by path relative to the skill folder. */
  files?: Record<string, string>;
}

/** Writes skills under a new temp folder; each body carries a marker unique to its skill. */
export function writeSkills(specs: readonly SkillSpec[]): { root: string; remove(): void } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'real-sisu-skills-'));
  for (const spec of specs) {
    const dir = path.join(root, spec.name);
    mkdirSync(dir, { recursive: true });
    const description = spec.description ?? `Does the ${spec.name} task. Use when asked to ${spec.name.replace(/-/g, ' ')}.`;
    const frontmatter = [`name: ${spec.name}`, `description: ${description}`, spec.frontmatter].filter(Boolean).join('\n');
    writeFileSync(path.join(dir, 'SKILL.md'), `---\n${frontmatter}\n---\n${spec.body ?? defaultBody(spec.name)}`);
    for (const [file, text] of Object.entries(spec.files ?? {})) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
  }
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * Skills written in `beforeAll` and removed in `afterAll` of the calling suite
 * (so a suite skipped for want of ../shared/sisu writes nothing).
 */
export function skillsFixture(specs: readonly SkillSpec[]): { readonly root: string } {
  let written: { root: string; remove(): void } | undefined;
  beforeAll(() => {
    written = writeSkills(specs);
  });
  afterAll(() => written?.remove());
  return {
    get root(): string {
      if (!written) throw new Error('skillsFixture: read root inside a test, after beforeAll');
      return written.root;
    },
  };
}

export function defaultBody(name: string): string {
  return `# ${name}\n\nBODY-OF-${name}: follow these steps.\n\n1. First step.\n2. Second step.\n`;
}

/**
 * A tool message's text: SISU stores `JSON.stringify(result)`, our injected
 * activations may be plain text; both decode to what the model reads.
 */
export function toolText(content: string): string {
  try {
    const decoded: unknown = JSON.parse(content);
    return typeof decoded === 'string' ? decoded : JSON.stringify(decoded);
  } catch {
    return content;
  }
}

/** The tool results a request carried, in order, decoded. */
export function toolResults(request: ScriptedRequest): Array<{ toolCallId: string; text: string }> {
  const results: Array<{ toolCallId: string; text: string }> = [];
  for (const message of request.messages) {
    if (message.role === 'tool') results.push({ toolCallId: message.toolCallId, text: toolText(message.content) });
  }
  return results;
}

/** The use_skill calls a request carried (the model's and injected ones), as skill names in order. */
export function useSkillCalls(request: ScriptedRequest): string[] {
  const names: string[] = [];
  for (const message of request.messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls) {
      const args = call.arguments as { skill_name?: unknown } | undefined;
      if (call.name === 'use_skill' && typeof args?.skill_name === 'string') names.push(args.skill_name);
    }
  }
  return names;
}

/** How many times `needle` occurs in `text`. */
export function countOf(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** The last message of a request, when it is a tool result: the model is being shown what its call returned. */
export function lastToolResult(request: ScriptedRequest): string | undefined {
  const last = request.messages.at(-1);
  return last?.role === 'tool' ? toolText(last.content) : undefined;
}
