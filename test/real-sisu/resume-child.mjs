/**
 * A chat app resuming a saved conversation in a process of its own: it loads
 * the messages an earlier process saved as JSON into a new SISU ctx and runs
 * more turns with SISU's real stack and our built package. Run by
 * resume.test.ts as `node resume-child.mjs <config.json>`; prints one JSON
 * line: what the run holds active, and the middleware's log.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startAtUserTurn } from './start-at-user-turn.mjs';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const sisu = (pkg) => import(pathToFileURL(path.join(config.sisuModules, pkg, 'dist', 'index.js')).href);
const core = await sisu('@sisu-ai/core');
const { conversationBuffer } = await sisu('@sisu-ai/mw-conversation-buffer');
const { skillsMiddleware, getSkills } = await import(pathToFileURL(config.package).href);

const model =
  config.provider === 'openai'
    ? (await sisu('@sisu-ai/adapter-openai')).openAIAdapter({ model: 'gpt-scripted', apiKey: 'test-key', baseUrl: config.url })
    : (await sisu('@sisu-ai/adapter-anthropic')).anthropicAdapter({
        model: 'claude-scripted',
        apiKey: 'test-key',
        baseUrl: config.url,
        maxRetries: 0,
      });

const entries = [];
const log = Object.fromEntries(
  ['debug', 'info', 'warn', 'error', 'span'].map((level) => [level, (...args) => entries.push({ level, args })]),
);
const skills = skillsMiddleware({ directories: [config.skills] });
const input = [core.inputToMessage, conversationBuffer({ window: config.window })];
if (config.provider === 'anthropic') input.push(startAtUserTurn);
const stack = config.placement === 'after' ? [...input, skills, core.execute] : [skills, ...input, core.execute];

const ctx = core.createCtx({ model, systemPrompt: 'You are a careful coding assistant.', logLevel: 'error' });
ctx.log = log;
ctx.messages = JSON.parse(readFileSync(config.saved, 'utf8'));
const agent = new core.Agent();
for (const mw of stack) agent.use(mw);
const app = agent.handler();
for (const text of config.inputs) {
  ctx.input = text;
  await app(ctx);
}
const logged = entries.filter((e) => typeof e.args[0] === 'string' && e.args[0].startsWith('[skills]'));
process.stdout.write(`${JSON.stringify({ activated: getSkills(ctx)?.activated ?? null, log: logged })}\n`);
