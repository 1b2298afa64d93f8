// Usage: node scripts/terminal-tool-policy.mjs
// What SISU's terminal tool (@sisu-ai/tool-terminal 10.0.0, in ../shared/sisu)
// does with the commands a skill's instructions give, measured on this
// machine: which paths `roots` and `readOnlyRoots` let run, whether
// `write: false` stops an interpreter, what quoted code and `allowSequence`
// do, and what `python3 s3://...` does to a whole SISU run (`execute`).
// docs/running-scripts.md quotes its output. Needs ../shared/sisu; prints
// why and exits 0 without it.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const modules = fileURLToPath(new URL('../../shared/sisu/node_modules/', import.meta.url));
if (!existsSync(path.join(modules, '@sisu-ai', 'tool-terminal'))) {
  console.log(`skipped: ${modules} has no @sisu-ai/tool-terminal (../shared/sisu not beside this clone)`);
  process.exit(0);
}
const sisu = (name) => import(pathToFileURL(path.join(modules, name, 'dist', 'index.js')).href);
const { createTerminalTool } = await sisu('@sisu-ai/tool-terminal');
const core = await sisu('@sisu-ai/core');
const { registerTools } = await sisu('@sisu-ai/mw-register-tools');

const work = mkdtempSync(path.join(os.tmpdir(), 'terminal-policy-'));
const inside = path.join(work, 'app');
const skills = path.join(work, 'skills');
for (const dir of [inside, path.join(skills, 'demo', 'scripts')]) mkdirSync(dir, { recursive: true });
const script = path.join(skills, 'demo', 'scripts', 'hello.py');
writeFileSync(script, "import sys\nprint('hello from', sys.argv[0])\n");
const writer = path.join(skills, 'demo', 'scripts', 'write.py');
writeFileSync(writer, `open(${JSON.stringify(path.join(inside, 'written.txt'))}, 'w').write('x')\nprint('wrote')\n`);
const interpreters = ['python3', 'node', 'bash', 'echo'];

/** One command through the tool's own handler, as `execute` calls it: its answer, or what it threw. */
async function run(config, command) {
  const tool = createTerminalTool(config).tools.find((t) => t.name === 'terminalRun');
  try {
    const result = await tool.handler(tool.schema.parse({ command }), { log: undefined });
    const policy = result.policy.allowed ? 'allowed' : `refused (${result.policy.reason})`;
    return `${policy}, exit ${result.exitCode}, stdout ${JSON.stringify(result.stdout.trim())}`;
  } catch (error) {
    return `THREW ${error instanceof RangeError ? 'RangeError' : (error.code ?? error.name)}: ${String(error.message).slice(0, 90)}`;
  }
}

const base = { roots: [inside], commands: { allow: interpreters } };
const rows = [
  ['script inside roots', { ...base, roots: [inside, skills] }, `python3 ${script}`],
  ['script outside roots', base, `python3 ${script}`],
  ['script in readOnlyRoots only', { ...base, readOnlyRoots: [skills] }, `python3 ${script}`],
  ['script in roots and readOnlyRoots', { ...base, roots: [inside, skills], readOnlyRoots: [skills] }, `python3 ${script}`],
  [
    'write: false, an allowed interpreter writes',
    { ...base, roots: [inside, skills], capabilities: { read: true, write: false, delete: false, exec: true } },
    `python3 ${writer}`,
  ],
  ['quoted code without /', base, `python3 -c "print('a-b')"`],
  ['quoted code with /', base, `python3 -c "print('a/b')"`],
  ['quoted ; without allowSequence', base, `echo 'a;b'`],
  ['quoted ; with allowSequence', { ...base, allowSequence: true }, `echo 'a;b'`],
  ['an s3:// path', { ...base, roots: [inside, skills] }, 'python3 s3://team-skills/prod/demo/scripts/hello.py'],
  ['a relative scripts/ path, cwd in roots', { ...base, roots: [path.join(skills, 'demo')] }, 'python3 scripts/hello.py'],
];
const version = JSON.parse(readFileSync(path.join(modules, '@sisu-ai', 'tool-terminal', 'package.json'), 'utf8')).version;
console.log(`@sisu-ai/tool-terminal ${version}, Node ${process.version}`);
for (const [what, config, command] of rows)
  console.log(`- ${what}: \`${command.replace(work, '<tmp>')}\` -> ${(await run(config, command)).replaceAll(work, '<tmp>')}`);
console.log(`  (written.txt exists after the write: false row: ${existsSync(path.join(inside, 'written.txt'))})`);

// The same s3:// command inside a whole SISU run: a model asks for it, `execute` runs the tool.
const terminal = createTerminalTool({ ...base, roots: [inside] });
const replies = [
  { tool_calls: [{ id: 'c1', name: 'bash', arguments: { command: 'python3 s3://team-skills/prod/demo/scripts/hello.py' } }] },
  { content: 'done' },
];
let asked = 0;
const model = {
  name: 'scripted',
  capabilities: { functionCall: true },
  generate: async () => {
    const reply = replies[Math.min(asked++, replies.length - 1)];
    return { message: { role: 'assistant', content: reply.content ?? '', tool_calls: reply.tool_calls } };
  },
};
const ctx = core.createCtx({ model, input: 'run the skill', logLevel: 'error' });
const agent = new core.Agent()
  .use(registerTools(terminal.tools, { aliases: { terminalRun: 'bash', terminalReadFile: 'read_file', terminalCd: 'cd' } }))
  .use(core.inputToMessage)
  .use(core.execute);
try {
  await agent.handler()(ctx);
  console.log(
    `- a SISU run whose model calls bash with an s3:// path: finished, answer ${JSON.stringify(core.getExecutionResult(ctx)?.text)}`,
  );
} catch (error) {
  const why = `${error.code ?? error.name}: ${String(error.message).replaceAll(work, '<tmp>').slice(0, 80)}`;
  console.log(`- a SISU run whose model calls bash with an s3:// path: the run REJECTED (${why}); model asked ${asked} time(s)`);
}
rmSync(work, { recursive: true, force: true });
