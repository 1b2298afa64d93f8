/**
 * Scenario: arguments and folder placeholders in the real SISU, both
 * providers with their protocol checks. `@skill rest of the message` and
 * use_skill's `arguments` fill in the skill's placeholders; a real corpus
 * skill whose shell code uses `$1` reaches the model with that code as
 * written; `${CLAUDE_SKILL_DIR}` and `${CLAUDE_PLUGIN_ROOT}` become folders;
 * `user-invocable: false` keeps @ mentions out but not the model.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { codeSegments } from '../../src/base/arguments.js';
import { getSkills, skillsMiddleware } from '../../src/index.js';
import {
  createCtx,
  describeSisu,
  lastToolResult,
  placedStack,
  PROVIDERS,
  realSisu,
  runAgent,
  skillsFixture,
  toolResults,
  type Provider,
} from './host.js';
import { itWith } from '../helpers/needs-shared.js';
import { CORPUS } from '../helpers/shared.js';

const DEPLOY = [
  'Deploy to $ARGUMENTS.',
  'Region: $0. Mode: $ARGUMENTS[1].',
  'Run `${CLAUDE_SKILL_DIR}/scripts/deploy.sh $0` from the skill folder.',
  '',
].join('\n');

const CORPUS_SKILL = path.join(CORPUS, 'wshobson__agents/plugins__shell-scripting__skills__bats-testing-patterns/SKILL.md');

describeSisu('arguments and folder placeholders reach the model filled in, code left as written', () => {
  const sisu = realSisu();
  const skills = skillsFixture([
    { name: 'deploy-staging', body: DEPLOY, frontmatter: 'argument-hint: <region> [mode]', files: { 'scripts/deploy.sh': 'echo "$1"\n' } },
    { name: 'internal-helper', frontmatter: 'user-invocable: false' },
  ]);
  const temp = mkdtempSync(path.join(os.tmpdir(), 'args-'));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  async function oneTurn(
    provider: Provider,
    placement: 'after' | 'before',
    input: string,
    script: Parameters<typeof sisu.start>[1],
    directories = [skills.root],
  ) {
    const { host } = sisu;
    const server = await sisu.start(provider, script);
    const ctx = createCtx(host, provider.model(host, server), { input });
    await runAgent(host, placedStack(host, placement, skillsMiddleware({ directories }), 12), ctx);
    expect(server.violations).toEqual([]);
    return { ctx, server };
  }

  for (const provider of PROVIDERS) {
    for (const placement of ['after', 'before'] as const) {
      it(`${provider.name}, skills ${placement} inputToMessage: @deploy-staging eu-west "dry run" fills in the placeholders`, async () => {
        const { ctx, server } = await oneTurn(provider, placement, '@deploy-staging eu-west "dry run"', ['On it.']);
        const request = server.requests[0]!;
        const call = request.messages.find((m) => m.role === 'assistant');
        expect(call?.role === 'assistant' && call.toolCalls[0]?.arguments).toEqual({
          skill_name: 'deploy-staging',
          arguments: 'eu-west "dry run"',
        });
        const text = toolResults(request)[0]?.text ?? '';
        const dir = getSkills(ctx)?.get('deploy-staging')?.directory ?? '';
        expect(text).toContain('Argument hint: <region> [mode]');
        expect(text).toContain('Deploy to eu-west "dry run".\nRegion: eu-west. Mode: dry run.');
        // argument-hint is the opt-in: inline code is filled in too.
        expect(text).toContain(`Run \`${dir}/scripts/deploy.sh eu-west\` from the skill folder.`);
        expect(text).not.toContain('ARGUMENTS: ');
      });
    }

    it(`${provider.name}: use_skill with arguments, through the adapter's schema, gets them filled in`, async () => {
      const { server } = await oneTurn(provider, 'after', 'Ship to us-east, quickly.', [
        { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'deploy-staging', arguments: 'us-east fast' } }] },
        'Deployed.',
      ]);
      // The adapter sent `arguments` as an optional string.
      const schema = server.requests[0]!.tools.find((t) => t.name === 'use_skill')?.parameters as {
        properties: Record<string, unknown>;
        required?: string[];
      };
      expect(schema.properties.arguments).toEqual({ type: 'string' });
      expect(schema.required).toEqual(['skill_name']);
      const answer = lastToolResult(server.requests[1]!) ?? '';
      expect(answer).toContain('Deploy to us-east fast.\nRegion: us-east. Mode: fast.');
    });

    it(`${provider.name}: user-invocable: false: an @ mention activates nothing, the model still can`, async () => {
      const { ctx, server } = await oneTurn(provider, 'after', '@internal-helper tidy the logs', [
        { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'internal-helper' } }] },
        'Tidied.',
      ]);
      expect(toolResults(server.requests[0]!)).toEqual([]);
      expect(ctx.log.find('[skills] mention ignored: the skill is not user-invocable')).toHaveLength(1);
      expect(lastToolResult(server.requests[1]!)).toContain('BODY-OF-internal-helper');
    });

    it(`${provider.name}: \${CLAUDE_PLUGIN_ROOT} becomes the plugin folder; without one it stays, with one warning per skill`, async () => {
      const root = mkdtempSync(path.join(temp, `plugin-${provider.name}-`));
      const plugin = path.join(root, 'ops-plugin');
      mkdirSync(path.join(plugin, '.claude-plugin'), { recursive: true });
      writeFileSync(path.join(plugin, '.claude-plugin', 'plugin.json'), '{"name":"ops-plugin"}\n');
      const write = (dir: string, name: string) => {
        mkdirSync(dir, { recursive: true });
        writeFileSync(
          path.join(dir, 'SKILL.md'),
          `---\nname: ${name}\ndescription: Ops task ${name}.\n---\nHooks live in \${CLAUDE_PLUGIN_ROOT}/hooks.\n`,
        );
      };
      write(path.join(plugin, 'skills', 'in-plugin'), 'in-plugin');
      write(path.join(root, 'loose', 'loose-skill'), 'loose-skill');
      const call = (name: string) => ({ toolCalls: [{ name: 'use_skill', arguments: { skill_name: name } }] });
      const { ctx, server } = await oneTurn(
        provider,
        'after',
        'Check the hooks.',
        [call('in-plugin'), call('loose-skill'), 'Done.'],
        [path.join(plugin, 'skills'), path.join(root, 'loose')],
      );
      expect(lastToolResult(server.requests[1]!)).toContain(`Hooks live in ${plugin}/hooks.`);
      expect(lastToolResult(server.requests[2]!)).toContain('Hooks live in ${CLAUDE_PLUGIN_ROOT}/hooks.');
      const warned = ctx.log.find('[skills] ${CLAUDE_PLUGIN_ROOT} left as written: no folder above the skill holds .claude-plugin/');
      expect(warned.map((e) => (e.args[1] as { skill: string }).skill)).toEqual(['loose-skill']);
    });

    itWith(
      'corpus',
      `${provider.name}: a corpus skill with $1 in its shell code, activated with arguments, reaches the model with its code as written`,
      async () => {
        const folder = mkdtempSync(path.join(temp, `corpus-${provider.name}-`));
        cpSync(CORPUS_SKILL, path.join(folder, 'bats-testing-patterns', 'SKILL.md'));
        const { server } = await oneTurn(provider, 'before', '@bats-testing-patterns tests/ ci', ['Writing tests.'], [folder]);
        const text = toolResults(server.requests[0]!)[0]?.text ?? '';
        const body = readFileSync(CORPUS_SKILL, 'utf8').split('\n---\n').slice(1).join('\n---\n');
        const blocks = codeSegments(body).filter((s) => s.code && /\$\d/.test(s.text));
        expect(blocks.length).toBeGreaterThan(0);
        for (const block of blocks) expect(text).toContain(block.text);
        expect(text).toContain('if [ ! -f "$1" ]; then');
        // No placeholder outside code took them: the arguments are appended instead.
        expect(text).toContain('ARGUMENTS: tests/ ci');
      },
    );
  }
});
