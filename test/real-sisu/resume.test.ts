/**
 * Scenario: a conversation saved as JSON and resumed in a fresh process. The
 * first process (this one) chats for six turns under conversationBuffer, the
 * model activating a skill on turn 1, and saves `ctx.messages` as JSON. A
 * child node process (a new module instance of our built package, a new
 * SISU ctx, no shared memory) loads it and chats on: the skill is recognised
 * from the messages' structure and stays in view on every request.
 *
 * Placed after the buffer, the middleware sees only the window the buffer
 * kept: a resumed chat is recognised when its activation is in that window
 * (here the second process's window, 12, holds the whole saved tail). Placed
 * before it, the whole saved conversation is read, whatever the window.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import type { ScriptedRequest } from '../../demo/scripted-model.mjs';
import { skillsMiddleware } from '../../src/index.js';
import { useBuiltBinary } from '../helpers/cli.js';
import { converse, sawInToolResult } from './conversation.js';
import { describeSisu, PROVIDERS, realSisu, SISU_ROOT, skillsFixture } from './host.js';

const exec = promisify(execFile);
const CHILD = fileURLToPath(new URL('./resume-child.mjs', import.meta.url));
const MARKER = 'BODY-OF-code-review';

function reply(request: ScriptedRequest, turn: number) {
  const last = request.messages.at(-1);
  if (turn === 1 && last?.role === 'user') return { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'code-review' } }] };
  return `Answer ${turn}.`;
}

describeSisu('a conversation saved as JSON and resumed in a fresh process', () => {
  const sisu = realSisu();
  const skills = skillsFixture([{ name: 'code-review' }, { name: 'unrelated' }]);
  const built = useBuiltBinary('resume-');
  const temp = mkdtempSync(path.join(os.tmpdir(), 'resume-'));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  for (const provider of PROVIDERS) {
    for (const placement of ['after', 'before'] as const) {
      it(`${provider.name}, skills ${placement} the buffer: the resumed chat keeps the skill in view`, async () => {
        const skillsMw = skillsMiddleware({ directories: [skills.root] });
        const inputs = Array.from({ length: 6 }, (_, i) => `Question ${i + 1}?`);
        const first = await converse(sisu, { provider, placement, window: 6, skillsMw, inputs, reply });
        expect(first.server.violations).toEqual([]);
        const saved = path.join(temp, `${provider.name}-${placement}.json`);
        writeFileSync(saved, JSON.stringify(first.ctx.messages));

        // The second process talks to a server of its own; every reply there is a plain answer.
        const server = await sisu.start(provider, () => 'Resumed answer.');
        const config = path.join(temp, `${provider.name}-${placement}-config.json`);
        const resumedInputs = Array.from({ length: 6 }, (_, i) => `Resumed question ${i + 1}?`);
        writeFileSync(
          config,
          JSON.stringify({
            sisuModules: path.join(SISU_ROOT, 'node_modules'),
            package: path.join(built.pack, 'dist', 'index.js'),
            provider: provider.name,
            url: server.url,
            skills: skills.root,
            window: placement === 'before' ? 6 : 12,
            placement,
            saved,
            inputs: resumedInputs,
          }),
        );
        const { stdout } = await exec(process.execPath, [CHILD, config]);
        const result = JSON.parse(stdout) as { activated: string[]; log: Array<{ level: string; args: unknown[] }> };
        expect(server.violations).toEqual([]);
        expect(server.requests).toHaveLength(resumedInputs.length);
        for (const request of server.requests) expect(sawInToolResult(request, MARKER)).toBe(true);
        expect(result.activated).toEqual(['code-review']);
        expect(result.log.some((e) => e.args[0] === '[skills] kept in view')).toBe(true);
      });
    }
  }
});
