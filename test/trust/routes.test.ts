/**
 * Every route a skill's text takes into a conversation, under `trust`
 * (issue 41: "never appears anywhere"): a user's @mention, `always`,
 * `autoActivate`, and name suggestions for a misspelt mention or use_skill.
 * A skill whose SKILL.md body was edited after signing (its head still the
 * signed one, so the catalog lists it) is refused at each route from the
 * very bytes read: no tampered byte and no part of its body enters the
 * messages, exactly one UNTRUSTED_SKILL diagnostic (with both hash
 * prefixes) is given, and the other skills still work. A skill whose head
 * was edited is not in the library at all: no route and no suggestion names
 * it. In report mode the same requests serve it, with the same diagnostic.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { skillsMiddleware, type SkillsOptions } from '../../src/index.js';
import { callTool, compose, conversation, createContext, type StackContext } from '../helpers/stack.js';
import { folderPlace, LIBRARY, sign, TAMPERED, trusted, type Place } from '../helpers/tamper.js';
import { hex, keyPair } from '../helpers/trust.js';

const ALPHA = LIBRARY['alpha/SKILL.md'] ?? '';
const TAMPERED_BODY = ALPHA.replace('BODY-alpha', `BODY-alpha ${TAMPERED}`);

async function placeWith(alpha: string): Promise<Place> {
  const place = await folderPlace();
  await sign(place);
  await place.write('alpha/SKILL.md', alpha);
  return place;
}

async function request(options: SkillsOptions, text: string): Promise<StackContext> {
  const middleware = skillsMiddleware(options);
  onTestFinished(() => middleware.close());
  const ctx = createContext({ messages: conversation(text) });
  await compose([middleware])(ctx);
  return ctx;
}

/** The trust diagnostics a request logged, as logged. */
function diagnostics(ctx: StackContext): Array<{ code: string; file: string; message: string }> {
  return ctx.log.entries.flatMap((entry) => {
    const data = entry.args[1] as { code?: unknown; file?: unknown; message?: unknown } | undefined;
    return typeof data?.code === 'string' && /^(MANIFEST_|UNTRUSTED_SKILL)/.test(data.code)
      ? [{ code: data.code, file: String(data.file), message: String(data.message) }]
      : [];
  });
}

const everything = (ctx: StackContext): string => JSON.stringify(ctx.messages);

/** One UNTRUSTED_SKILL for alpha's SKILL.md, with the signed and the served hash prefixes. */
function expectOneRefusal(ctx: StackContext): void {
  expect(diagnostics(ctx)).toEqual([
    {
      code: 'UNTRUSTED_SKILL',
      file: expect.stringMatching(/alpha[/\\]SKILL\.md$/) as string,
      message:
        `skill folder "alpha": "SKILL.md" changed after signing (expected sha256 ${hex(ALPHA).slice(0, 12)}…, ` +
        `got ${hex(TAMPERED_BODY).slice(0, 12)}…; ${Buffer.byteLength(ALPHA)} bytes signed, ${Buffer.byteLength(TAMPERED_BODY)} now). ` +
        'Sign the place again if the change is yours.',
    },
  ]);
}

describe('a SKILL.md body edited after signing, at every route', () => {
  it.each([
    ['a user @mention', {}, '@alpha fill this form'],
    ['`always`', { always: ['alpha'] }, 'hello'],
    ['`autoActivate`', { autoActivate: { threshold: 0.01, maxSkills: 1 } }, 'alpha fills forms, alpha work'],
  ] as const)('%s: nothing of its body enters the messages, one diagnostic, the others still work', async (_, extra, text) => {
    const place = await placeWith(TAMPERED_BODY);
    const ctx = await request(trusted(place, extra), text);
    expect(everything(ctx)).not.toContain(TAMPERED);
    expect(everything(ctx)).not.toContain('BODY-alpha');
    expectOneRefusal(ctx);
    expect(await callTool(ctx, 'use_skill', { skill_name: 'beta' })).toContain('BODY-beta');
    const again = await callTool(ctx, 'use_skill', { skill_name: 'alpha' });
    expect(again).not.toContain(TAMPERED);
    expect(again).not.toContain('BODY-alpha');
  });

  it('in report mode the same requests serve it, with the same one diagnostic', async () => {
    const place = await placeWith(TAMPERED_BODY);
    const report = { trust: { keys: [keyPair(0).publicPem], mode: 'report' as const } };
    for (const [extra, text] of [
      [{}, '@alpha fill this form'],
      [{ always: ['alpha'] }, 'hello'],
    ] as const) {
      const ctx = await request(trusted(place, { ...extra, ...report }), text);
      expect(everything(ctx)).toContain(`BODY-alpha ${TAMPERED}`);
      expectOneRefusal(ctx);
    }
  });
});

describe('a SKILL.md head edited after signing', () => {
  it('is in no route and no suggestion: a mention, `always`, a misspelt mention or use_skill never name it', async () => {
    const place = await placeWith(ALPHA.replace('Alpha fills forms.', `${TAMPERED} fills forms.`));
    const mentioned = await request(trusted(place, { always: ['alpha'] }), '@alpha and @alpah please, alpha forms');
    expect(everything(mentioned)).not.toContain(TAMPERED);
    expect(everything(mentioned)).not.toContain('BODY-alpha');
    expect(mentioned.log.entries.find((entry) => entry.args[0] === '[skills] unknown skill in `always`')?.args[1]).toEqual({
      skill: 'alpha',
      suggestions: expect.not.arrayContaining(['alpha']) as unknown,
    });
    for (const name of ['alpha', 'alpah', 'alph']) {
      const answer = await callTool(mentioned, 'use_skill', { skill_name: name });
      // The answer names the name asked for, then suggests others: never alpha.
      expect(answer.startsWith(`Skill "${name}" not found.`)).toBe(true);
      expect(answer.slice(`Skill "${name}" not found.`.length)).not.toContain('alpha');
      expect(answer).toMatch(/Closest available skills: beta, gamma\./);
    }
    expect(await callTool(mentioned, 'read_skill_resource', { skill_name: 'alpha', path: 'references/guide.md' })).not.toContain(
      'ALPHA-GUIDE',
    );
    expect(diagnostics(mentioned)).toEqual([
      expect.objectContaining({
        code: 'UNTRUSTED_SKILL',
        message: expect.stringMatching(
          /^skill folder "alpha": SKILL\.md's frontmatter changed after signing \(expected sha256 [0-9a-f]{12}…, got [0-9a-f]{12}…\)/,
        ) as string,
      }),
    ]);
  });
});

describe('a resource added after signing', () => {
  it('is not listed, and a read of it says it is unsigned', async () => {
    const place = await placeWith(ALPHA);
    await place.write('alpha/scripts/added.sh', `echo ${TAMPERED}\n`);
    const ctx = await request(trusted(place), 'hello');
    const activation = await callTool(ctx, 'use_skill', { skill_name: 'alpha' });
    expect(activation).toContain('scripts/run.sh');
    expect(activation).not.toContain('added.sh');
    const read = await callTool(ctx, 'read_skill_resource', { skill_name: 'alpha', path: 'scripts/added.sh' });
    expect(read).not.toContain(TAMPERED);
    expect(read).toMatch(/added after the skill's library was signed \(its signed manifest does not list it\), so it is not served/);
  });
});
