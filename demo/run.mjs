#!/usr/bin/env node
/**
 * `npm run demo`: the skills middleware inside SISU's real agent loop.
 *
 * Host, first found: `@sisu-ai/core` + `@sisu-ai/adapter-openai` installed in
 * this app, else SISU's packages in ../shared/sisu, else the small fallback in
 * demo/mini-sisu.mjs (and the output says so). `DEMO_HOST=shared|fallback`
 * forces one.
 *
 * The model is a scripted OpenAI-compatible server on 127.0.0.1 behind the
 * host's `openAIAdapter`, so every step crosses the same HTTP path a real
 * model's does. It reads the catalog it is sent, calls use_skill, and answers
 * from the skill body that came back through `execute`. A second request
 * activates a skill with an `@` mention. Exits 1 when the body does not come
 * back. The package is imported from its build in dist/.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startOpenAIServer } from './scripted-model.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const distEntry = path.join(root, 'dist', 'index.js');
const skillsDir = path.join(root, 'fixtures', 'skills');
const sharedSisu = path.resolve(root, '..', 'shared', 'sisu', 'node_modules');

const SYSTEM = 'You are a careful coding assistant.';
const USER = 'Can you review the change I made to src/auth/session.ts?';
const WANTED_SKILL = 'code-review';
const MENTIONED_SKILL = 'deploy-staging';
const MENTION_INPUT = `@${MENTIONED_SKILL} please ship my branch to staging`;

/** Thrown for anything the demo expected and did not find; printed without a stack. */
class DemoError extends Error {}

function expect(condition, message) {
  if (!condition) throw new DemoError(message);
}

function section(title) {
  console.log(`\n== ${title} ${'='.repeat(Math.max(8, 76 - title.length))}\n`);
}

function indent(text) {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

// ---------------------------------------------------------------------------
// Host

function versionOf(packageJson) {
  try {
    return JSON.parse(readFileSync(packageJson, 'utf8')).version ?? '?';
  } catch {
    return '?';
  }
}

async function importIfInstalled(name) {
  try {
    return await import(name);
  } catch (error) {
    if (error?.code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}

function hostFrom(core, adapter, label) {
  const { Agent, createCtx, execute, inputToMessage, getExecutionResult } = core;
  return { label, Agent, createCtx, execute, inputToMessage, getExecutionResult, openAIAdapter: adapter.openAIAdapter };
}

async function resolveHost() {
  const forced = process.env.DEMO_HOST;
  if (!forced) {
    const core = await importIfInstalled('@sisu-ai/core');
    const adapter = core && (await importIfInstalled('@sisu-ai/adapter-openai'));
    if (core && adapter) {
      const corePackage = path.join(path.dirname(fileURLToPath(import.meta.resolve('@sisu-ai/core'))), '..', 'package.json');
      return hostFrom(core, adapter, `SISU: @sisu-ai/core ${versionOf(corePackage)} installed in this app, with its openAIAdapter`);
    }
  }
  if (forced !== 'fallback' && existsSync(path.join(sharedSisu, '@sisu-ai', 'core', 'dist', 'index.js'))) {
    const load = (name) => import(pathToFileURL(path.join(sharedSisu, name, 'dist', 'index.js')).href);
    const [core, adapter] = await Promise.all([load('@sisu-ai/core'), load('@sisu-ai/adapter-openai')]);
    const version = (name) => versionOf(path.join(sharedSisu, name, 'package.json'));
    return hostFrom(
      core,
      adapter,
      `SISU: @sisu-ai/core ${version('@sisu-ai/core')} and @sisu-ai/adapter-openai ${version('@sisu-ai/adapter-openai')} from ../shared/sisu`,
    );
  }
  const mini = await import('./mini-sisu.mjs');
  const why = forced === 'fallback' ? 'chosen by DEMO_HOST=fallback' : 'neither @sisu-ai/core nor ../shared/sisu was found';
  return hostFrom(mini, mini, `FALLBACK: ${mini.HOST_NAME}; ${why}`);
}

// ---------------------------------------------------------------------------
// The scripted model: decides from what it is sent, as a real model would

/** Skill names in the catalog, read from its "- name: description" lines. */
function catalogNames(systemText) {
  const names = [];
  for (const line of systemText.split('\n')) {
    const match = /^\s*[-*]\s+([a-z0-9]+(?:-[a-z0-9]+)*)\s*:/.exec(line);
    if (match) names.push(match[1]);
  }
  return names;
}

function firstHeading(markdown) {
  return /^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/m.exec(markdown)?.[1];
}

/** A tool message's text: SISU stores `JSON.stringify(result)`. */
function toolText(content) {
  try {
    const decoded = JSON.parse(content);
    return typeof decoded === 'string' ? decoded : JSON.stringify(decoded, null, 2);
  } catch {
    return content;
  }
}

function modelReply(request) {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') {
    const text = toolText(last.content);
    const skill = /<skill name="([^"]+)">/.exec(text)?.[1] ?? 'the';
    return `Following the ${skill} skill ("${firstHeading(text) ?? 'its instructions'}"): I'll start with the steps it lists.`;
  }
  const names = catalogNames(request.system);
  if (!names.includes(WANTED_SKILL)) {
    throw new Error(`"${WANTED_SKILL}" is not in the catalog the model was sent (found: ${names.join(', ') || 'none'})`);
  }
  return { toolCalls: [{ name: 'use_skill', arguments: { skill_name: WANTED_SKILL } }] };
}

// ---------------------------------------------------------------------------

function recordingLogger() {
  const entries = [];
  const record =
    (level) =>
    (...args) =>
      void entries.push({ level, args });
  return { entries, debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error'), span: record('span') };
}

function formatArg(arg) {
  return typeof arg === 'string' ? arg : JSON.stringify(arg);
}

async function runRequest(host, app, server, input) {
  const ctx = host.createCtx({
    model: host.openAIAdapter({ model: 'scripted-demo', apiKey: 'demo-key', baseUrl: server.url }),
    input,
    systemPrompt: SYSTEM,
    logLevel: 'error',
  });
  ctx.log = recordingLogger();
  const before = server.requests.length;
  try {
    await app(ctx);
  } catch (error) {
    const violations = server.violations.length ? `\n  the model server refused: ${server.violations.join('\n  ')}` : '';
    throw new DemoError(`the agent failed: ${error instanceof Error ? error.message : String(error)}${violations}`);
  }
  return { ctx, requests: server.requests.slice(before) };
}

async function main() {
  expect(existsSync(distEntry), `the package is not built (${distEntry} is missing). Run \`npm run demo\`, which builds first.`);
  const pkg = await import(pathToFileURL(distEntry).href);
  expect(typeof pkg.skillsMiddleware === 'function', 'dist/index.js does not export skillsMiddleware');

  const host = await resolveHost();
  const server = await startOpenAIServer(modelReply, { maxRequests: 20 });
  try {
    // One middleware for both requests, created once as an app does.
    const app = new host.Agent()
      .use(host.inputToMessage)
      .use(pkg.skillsMiddleware({ directories: [skillsDir] }))
      .use(host.execute)
      .handler();

    section('Host');
    console.log(`  ${host.label}`);
    console.log(`  Model: scripted OpenAI-compatible server at ${server.url}, reached through openAIAdapter`);
    console.log(`  Skills folder: ${path.relative(root, skillsDir)}`);
    console.log(`  User: ${USER}`);

    const { ctx, requests } = await runRequest(host, app, server, USER);
    const problems = ctx.log.entries.filter((e) => e.level === 'warn' || e.level === 'error');
    if (problems.length > 0) {
      section('Warnings (from ctx.log)');
      for (const entry of problems) console.log(`  [${entry.level}] ${entry.args.map(formatArg).join(' ')}`);
    }
    expect(requests.length >= 2, `the model was called ${requests.length} time(s); expected a use_skill call and an answer`);

    section('1. The catalog, in the system prompt the model received');
    console.log(indent(requests[0].system));

    section('2. Tools, as the adapter sent them');
    const tools = requests[0].body.tools ?? [];
    console.log(indent(JSON.stringify(tools, null, 2)));
    const useSkill = tools.find((t) => t.function?.name === 'use_skill');
    expect(useSkill, 'no use_skill tool was sent to the model');
    expect(
      useSkill.function.parameters?.properties?.skill_name?.type === 'string',
      `use_skill reached the model without a skill_name string: ${JSON.stringify(useSkill.function.parameters)}`,
    );

    section("3. The model's tool call, as the adapter sent it back");
    const call = requests[1].body.messages.find((m) => m.role === 'assistant' && m.tool_calls?.length)?.tool_calls?.[0];
    expect(call, 'the model made no tool call');
    console.log(`  ${call.function.name}(${call.function.arguments})  [id ${call.id}]`);

    section('4. The skill body that came back through execute');
    const stored = ctx.messages.find((m) => m.role === 'tool');
    expect(stored, 'no tool message was stored for the use_skill call');
    const answer = toolText(stored.content);
    console.log(indent(answer));
    const skillFile = readFileSync(path.join(skillsDir, WANTED_SKILL, 'SKILL.md'), 'utf8');
    const body = pkg.parseFrontmatter(skillFile).body.trim();
    expect(answer.includes(body), `the use_skill answer does not carry the ${WANTED_SKILL} SKILL.md body; it was:\n${answer}`);
    expect(requests[1].messages.at(-1)?.content === stored.content, 'the model was not shown the use_skill answer');

    section('5. Final answer');
    console.log(indent(host.getExecutionResult(ctx)?.text ?? ctx.messages.at(-1)?.content ?? ''));

    await mentionScene(host, app, server);

    section('Done');
    console.log(`  ${server.requests.length} model requests, ${server.violations.length} protocol violations, host: ${host.label}`);
    expect(server.violations.length === 0, `the model server saw protocol violations: ${server.violations.join('; ')}`);
  } finally {
    await server.close();
  }
}

/** A second request in which the user names a skill with `@`: it is active before the model runs. */
async function mentionScene(host, app, server) {
  const { ctx, requests } = await runRequest(host, app, server, MENTION_INPUT);
  section('6. A second request with an @ mention');
  console.log(`  User: ${MENTION_INPUT}`);
  const activation = ctx.log.entries.find((e) => e.args[0] === '[skills] activated');
  expect(activation, `@${MENTIONED_SKILL} did not activate the skill`);
  console.log(`  ctx.log: ${activation.args.map(formatArg).join(' ')}`);
  const injected = requests[0]?.messages.find((m) => m.role === 'tool');
  const text = injected ? toolText(injected.content) : '';
  expect(text.includes(`<skill name="${MENTIONED_SKILL}">`), `the model was not sent the ${MENTIONED_SKILL} instructions`);
  console.log('  Sent to the model before it ran (first lines):');
  console.log(indent(text.split('\n').slice(0, 6).join('\n')));
  expect(requests.length === 1, 'the model should answer at once: the skill was already active');
  console.log(`  Model: ${host.getExecutionResult(ctx)?.text ?? ''}`);
}

main().catch((error) => {
  if (error instanceof DemoError) {
    console.error(`\ndemo failed: ${error.message}`);
  } else {
    console.error('\ndemo failed with an unexpected error:');
    console.error(error);
  }
  process.exitCode = 1;
});
