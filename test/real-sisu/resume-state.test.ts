/**
 * Scenario: what an activation set survives a resumed conversation. One
 * process chats four turns (an `@` mention with arguments, the model's
 * use_skill, the same mention with new arguments, a resource read) and saves
 * `ctx.messages` as JSON. The chat then goes on twice with the same three
 * turns: in that process (the same middleware instance, the same ctx), and
 * resumed from the JSON in a new middleware instance and a new SISU ctx. The
 * model must be sent exactly the same requests both ways: the latest
 * arguments filled in when a skill is put back in view, a repeated mention
 * not injected again, the per-run read budget already spent, and active
 * skills in the order they were last activated. What the messages cannot
 * hold: a skill other middleware ended (`ctx.skills.end`) is active again
 * after resuming, until the app ends it again (README, Notes & Gotchas).
 *
 * The skills middleware stands before the buffer here, so the first resumed
 * turn reads the whole saved conversation; placed after it, it reads the
 * window the buffer kept (README, Placement & Ordering).
 */
import { expect, it } from 'vitest';
import type { NeutralMessage, ScriptedReply, ScriptedRequest } from '../../demo/scripted-model.mjs';
import { getSkills, skillsMiddleware } from '../../src/index.js';
import { conversationStack } from './conversation.js';
import {
  createCtx,
  describeSisu,
  PROVIDERS,
  realSisu,
  runAgent,
  skillsFixture,
  toolText,
  type Provider,
  type SisuCtx,
  type SisuMiddleware,
} from './host.js';

const DEPLOY = 'Deploy to $ARGUMENTS.\nCheck the runbook first.\n';
/** 600 bytes each; the per-run budget (maxSkillSize) below lets one of them be read, not both. */
const SIX_HUNDRED_BYTES = `${'r'.repeat(59)}\n`.repeat(10);
const MAX_SKILL_SIZE = 1000;

/** Answers by the latest user message; `tag` keeps the model's call ids unique across servers. */
function model(tag: string) {
  return (request: ScriptedRequest): ScriptedReply => {
    let at = request.messages.length - 1;
    while (at >= 0 && request.messages[at]?.role !== 'user') at--;
    const user = request.messages[at];
    const lastUser = user?.role === 'user' ? user.text : '';
    const afterUser = request.messages.slice(at + 1);
    const answered = afterUser.some((m) => m.role === 'tool' && m.toolCallId.startsWith('model_'));
    const call = (name: string, args: Record<string, unknown>): ScriptedReply =>
      answered ? 'Done.' : { toolCalls: [{ id: `model_${tag}_${request.index}`, name, arguments: args }] };
    if (lastUser === 'Review this change.') return call('use_skill', { skill_name: 'code-review' });
    if (lastUser === 'Read the runbook.')
      return call('read_skill_resource', { skill_name: 'deploy-staging', path: 'references/runbook.md' });
    if (lastUser === 'Read the checklist.') {
      return call('read_skill_resource', { skill_name: 'deploy-staging', path: 'references/checklist.md' });
    }
    return 'Answer.';
  };
}

/** A request as the model saw it, without the ids of the model's own calls (each server numbers them). */
function seen(request: ScriptedRequest): unknown {
  const message = (m: NeutralMessage): unknown => {
    if (m.role === 'user') return ['user', m.text];
    if (m.role === 'tool') return ['tool', m.toolCallId.startsWith('model_') ? 'model' : m.toolCallId, toolText(m.content)];
    return ['assistant', m.text, m.toolCalls.map((c) => [c.id.startsWith('model_') ? 'model' : c.id, c.name, c.arguments])];
  };
  return { system: request.system, messages: request.messages.map(message) };
}

describeSisu('a resumed conversation recovers what its activations set', () => {
  const sisu = realSisu();
  const skills = skillsFixture([
    {
      name: 'deploy-staging',
      body: DEPLOY,
      frontmatter: 'argument-hint: <region>',
      files: { 'references/runbook.md': SIX_HUNDRED_BYTES, 'references/checklist.md': SIX_HUNDRED_BYTES },
    },
    { name: 'code-review' },
  ]);

  async function chat(provider: Provider, ctx: SisuCtx, skillsMw: SisuMiddleware, window: number, inputs: string[]) {
    const stack = conversationStack(sisu, provider, 'before', skillsMw, window);
    for (const input of inputs) {
      ctx.input = input;
      await runAgent(sisu.host, stack, ctx);
    }
  }

  for (const provider of PROVIDERS) {
    it(`${provider.name}: the resumed chat sends the model exactly what the original process would`, async () => {
      const { host } = sisu;
      const options = { directories: [skills.root], maxSkillSize: MAX_SKILL_SIZE };
      const first = await sisu.start(provider, model('a'));
      const originalMw = skillsMiddleware(options);
      const ctx = createCtx(host, provider.model(host, first));
      // A window that keeps everything, so the saved messages hold every activation the run saw.
      await chat(provider, ctx, originalMw, 40, [
        '@deploy-staging eu-west',
        'Review this change.',
        '@deploy-staging us-east',
        'Read the runbook.',
      ]);
      expect(getSkills(ctx)?.activated).toEqual(['code-review', 'deploy-staging']);
      const saved = JSON.stringify(ctx.messages);

      // Then a small window: the buffer trims the activations, and keep-in-view puts them back.
      const next = ['@deploy-staging us-east', 'Read the checklist.', 'Anything else?'];
      const continued = first.requests.length;
      await chat(provider, ctx, originalMw, 4, next);

      const second = await sisu.start(provider, model('b'));
      const resumed = createCtx(host, provider.model(host, second));
      resumed.messages = JSON.parse(saved) as SisuCtx['messages'];
      await chat(provider, resumed, skillsMiddleware(options), 4, next);

      expect(first.violations).toEqual([]);
      expect(second.violations).toEqual([]);
      const original = first.requests.slice(continued);
      expect(second.requests.map(seen)).toEqual(original.map(seen));
      expect(getSkills(resumed)?.activated).toEqual(getSkills(ctx)?.activated);

      // What that means, spelled out on the resumed chat.
      const texts = second.requests.flatMap((request) => request.messages.flatMap((m) => (m.role === 'tool' ? [toolText(m.content)] : [])));
      expect(texts.some((text) => text.includes('Deploy to us-east.'))).toBe(true);
      expect(texts.some((text) => text.includes('Deploy to eu-west.') || text.includes('Deploy to .'))).toBe(false);
      const injectedMentions = second.requests.flatMap((request) =>
        request.messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls.filter((c) => c.id.startsWith('skills_mention_')) : [])),
      );
      expect(injectedMentions).toEqual([]);
      expect(
        texts.some((text) =>
          /^Cannot read "references\/checklist\.md" from skill "deploy-staging": lines 1-10 are 599 B, but only 401 B/.test(text),
        ),
      ).toBe(true);
    });
  }

  /** The skills middleware, then `end(name)` for each of `ended()` (an app's own middleware right after it). */
  function endingAfter(skillsMw: SisuMiddleware, ended: () => readonly string[]): SisuMiddleware {
    return (ctx, next) =>
      skillsMw(ctx, async () => {
        for (const name of ended()) getSkills(ctx)?.end(name);
        await next();
      });
  }

  for (const provider of PROVIDERS) {
    it(`${provider.name}: a skill ended before the save is active again after resuming, unless the app ends it again`, async () => {
      const { host } = sisu;
      const options = { directories: [skills.root] };
      const first = await sisu.start(provider, model('a'));
      let ended: string[] = [];
      const originalMw = endingAfter(skillsMiddleware(options), () => ended);
      const ctx = createCtx(host, provider.model(host, first));
      await chat(provider, ctx, originalMw, 40, ['@deploy-staging eu-west', 'Review this change.']);
      ended = ['code-review'];
      await chat(provider, ctx, originalMw, 40, ['Thanks.']);
      expect(getSkills(ctx)?.activated).toEqual(['deploy-staging']);
      const saved = JSON.stringify(ctx.messages);

      const next = ['Anything else?', 'And then?'];
      const continued = first.requests.length;
      await chat(provider, ctx, originalMw, 4, next);
      const original = first.requests.slice(continued).map(seen);

      // Nothing in the messages says the skill was ended: resumed as they are, it is active and put back in view.
      const plain = await sisu.start(provider, model('b'));
      const resumedPlain = createCtx(host, provider.model(host, plain));
      resumedPlain.messages = JSON.parse(saved) as SisuCtx['messages'];
      await chat(provider, resumedPlain, skillsMiddleware(options), 4, next);
      expect(getSkills(resumedPlain)?.activated).toEqual(['deploy-staging', 'code-review']);
      expect(plain.requests.map(seen)).not.toEqual(original);

      // The app that saved which skills it ended ends them again on the resumed ctx: the chat goes on as it would have.
      const again = await sisu.start(provider, model('c'));
      const resumed = createCtx(host, provider.model(host, again));
      resumed.messages = JSON.parse(saved) as SisuCtx['messages'];
      await chat(
        provider,
        resumed,
        endingAfter(skillsMiddleware(options), () => ['code-review']),
        4,
        next,
      );
      expect(getSkills(resumed)?.activated).toEqual(['deploy-staging']);
      expect(again.requests.map(seen)).toEqual(original);
      expect([first, plain, again].flatMap((server) => server.violations)).toEqual([]);
    });
  }
});
