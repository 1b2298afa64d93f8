#!/usr/bin/env node
/**
 * `npm run demo`: one offline agent turn with the skills middleware.
 *
 * A scripted model stands in for the LLM. It reads the skills catalog from the
 * system prompt, activates `code-review` through the `use_skill` tool, and
 * answers by quoting the instructions it got back. Nothing here needs a
 * network or an API key; the package is imported from its build in dist/.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compose, createContext, scriptedModel, toolCalling } from './mini-sisu.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const distEntry = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const skillsDir = fileURLToPath(new URL('../fixtures/skills', import.meta.url));

const SYSTEM = 'You are a careful coding assistant.';
const USER = 'Can you review the change I made to src/auth/session.ts?';
const WANTED_SKILL = 'code-review';
const MENTIONED_SKILL = 'deploy-staging';
const TOOL = 'use_skill';

/** Thrown for anything the demo expected and did not find; printed without a stack. */
class DemoError extends Error {}

function expect(condition, message) {
  if (!condition) throw new DemoError(message);
}

function section(title) {
  const rule = '='.repeat(Math.max(8, 76 - title.length));
  console.log(`\n== ${title} ${rule}\n`);
}

function indent(text) {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/** Skill names in the catalog, read the way a model would: from its "- name: description" lines. */
function catalogNames(systemText) {
  const names = [];
  for (const line of systemText.split('\n')) {
    const match = /^\s*[-*]\s+([a-z0-9]+(?:-[a-z0-9]+)*)\s*:/.exec(line);
    if (match) names.push(match[1]);
  }
  return names;
}

function firstHeading(markdown) {
  const match = /^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/m.exec(markdown);
  return match ? match[1] : undefined;
}

// The scripted "model": two turns, each decided from what it is shown.
const steps = [
  (messages) => {
    const system = messages.find((m) => m.role === 'system');
    expect(system, 'the model was called without a system message');
    const names = catalogNames(system.content);
    expect(names.length > 0, 'no skills catalog in the system message: did the middleware run and find fixtures/skills?');
    const chosen = names.find((name) => name === WANTED_SKILL);
    expect(chosen, `"${WANTED_SKILL}" is not in the catalog (found: ${names.join(', ')})`);
    return {
      content: '',
      tool_calls: [{ id: 'call_1', name: TOOL, arguments: { skill_name: chosen } }],
    };
  },
  (messages) => {
    const result = messages.at(-1);
    expect(result && result.role === 'tool', `expected a ${TOOL} result before the final answer`);
    const heading = firstHeading(result.content);
    expect(heading, `the ${TOOL} result has no markdown heading; got:\n${result.content}`);
    return {
      content:
        `I loaded the ${WANTED_SKILL} skill ("${heading}") and will follow it: first I'll read the diff for ` +
        'src/auth/session.ts and its callers, then report findings ranked from blocker to nit, ' +
        'paying special attention to session expiry and authorization checks.',
    };
  },
];

async function main() {
  expect(
    existsSync(distEntry),
    `the package is not built (${distEntry} is missing). Run \`npm run demo\`, which builds first, or \`npm run build\`.`,
  );
  const pkg = await import(pathToFileURL(distEntry).href);
  expect(typeof pkg.skillsMiddleware === 'function', 'dist/index.js does not export skillsMiddleware');

  const model = scriptedModel(steps);
  const ctx = createContext({
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: USER },
    ],
    model,
  });
  // One middleware for both requests: the second reuses the cached index.
  const skills = pkg.skillsMiddleware({ directories: [skillsDir] });
  const app = compose([skills, toolCalling({ maxRounds: 3 })]);

  section('Setup');
  console.log(`Skills folder: ${skillsDir.startsWith(root) ? skillsDir.slice(root.length) : skillsDir}`);
  console.log(`User: ${USER}`);
  console.log('Model: scripted (offline); it picks a skill from the catalog it is shown.');

  await app(ctx);

  const problems = ctx.log.entries.filter((e) => e.level === 'warn' || e.level === 'error');
  if (problems.length > 0) {
    section('Discovery warnings (from ctx.log)');
    for (const entry of problems) console.log(`  [${entry.level}] ${entry.args.map(formatArg).join(' ')}`);
  }

  const first = model.calls[0];
  expect(first, 'the model was never called');

  section('1. System prompt, as the model sees it');
  console.log(indent(first.system ?? '(no system message)'));

  section("2. Tools, as SISU's OpenAI/Anthropic adapters would send them");
  expect(first.toolNames.includes(TOOL), `no ${TOOL} tool was registered (tools: ${first.toolNames.join(', ') || 'none'})`);
  const definitions = first.tools;
  console.log(indent(JSON.stringify(definitions, null, 2)));
  const useSkill = definitions.find((d) => d.name === TOOL);
  expect(
    useSkill.parameters.properties?.skill_name?.type === 'string',
    `${TOOL}'s parameters would reach the model without a skill_name string: ${JSON.stringify(useSkill.parameters)}`,
  );

  const call = ctx.messages.find((m) => m.role === 'assistant' && m.tool_calls?.length);
  expect(call, 'the model made no tool call');
  section('3. Tool call from the model');
  for (const tc of call.tool_calls) console.log(`  ${tc.name}(${JSON.stringify(tc.arguments)})  [id ${tc.id}]`);

  const result = ctx.messages.find((m) => m.role === 'tool');
  expect(result, `no ${TOOL} result message was added`);
  section(`4. Activation result (the tool message for ${result.tool_call_id})`);
  console.log(indent(result.content));
  expect(
    result.content.includes('# Code Review'),
    `the ${TOOL} result does not contain the code-review instructions`,
  );

  const answer = ctx.messages.at(-1);
  expect(answer && answer.role === 'assistant' && !answer.tool_calls, 'the run did not end with a final answer');
  section('5. Final answer');
  console.log(indent(answer.content));

  await mentionScene(app);

  section('Done');
  console.log(`  First request: ${model.calls.length} model calls, ${ctx.tools.list().length} tool(s) registered, ${ctx.messages.length} messages.`);
}

/** A second request in which the user names a skill with `@`: it is active before the model runs. */
async function mentionScene(app) {
  const user = `@${MENTIONED_SKILL} please ship my branch to staging`;
  const model = scriptedModel([
    (messages) => {
      const injected = messages.find((m) => m.role === 'tool');
      return { content: `Following "${firstHeading(injected?.content ?? '') ?? '?'}" from the ${MENTIONED_SKILL} skill: I'll run the checks first.` };
    },
  ]);
  const ctx = createContext({ messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: user }], model });
  await app(ctx);

  section('6. A second request with an @ mention');
  console.log(`  User: ${user}`);
  const activation = ctx.log.entries.find((e) => e.args[0] === '[skills] activated');
  expect(activation, `@${MENTIONED_SKILL} did not activate the skill`);
  console.log(`  ctx.log: ${activation.args.map(formatArg).join(' ')}`);
  const injected = ctx.messages.find((m) => m.role === 'tool');
  expect(injected?.content.startsWith(`<skill name="${MENTIONED_SKILL}">`), `no ${MENTIONED_SKILL} instructions were injected`);
  console.log('  Injected before the model ran (first lines):');
  console.log(indent(injected.content.split('\n').slice(0, 6).join('\n')));
  expect(model.calls.length === 1, 'the model should answer at once: the skill was already active');
  console.log(`  Model: ${ctx.messages.at(-1).content}`);
}

function formatArg(arg) {
  return typeof arg === 'string' ? arg : JSON.stringify(arg);
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
