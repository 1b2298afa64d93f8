/**
 * One agent, two tenants, under load, in the real SISU (execute and both
 * adapters against the scripted servers). Each tenant has skills the other
 * must not see; `visible` decides from `ctx.state.tenant`. 1,000
 * conversations, alternating tenants and (every two) providers, run on one
 * middleware instance, 50 at a time. In every request body the model server received and in every tool
 * answer, nothing of the other tenant's skills appears: no name (beyond the
 * model's own probe being quoted back as "not found"), no description, no
 * instructions, no file. The model probes for them on purpose: by exact name,
 * by a misspelt name (suggestions), by search, by reading a file, and by a
 * user's `@` mention.
 */
import { performance } from 'node:perf_hooks';
import { expect, it } from 'vitest';
import type { ScriptedReply, ScriptedRequest, ScriptedServer } from '../../demo/scripted-model.mjs';
import { skillsMiddleware } from '../../src/index.js';
import {
  createCtx,
  describeSisu,
  PROVIDERS,
  realSisu,
  skillsFixture,
  toolText,
  type Provider,
  type SisuLLM,
  type SkillSpec,
} from './host.js';

const CONVERSATIONS = 1000;
const CONCURRENCY = 50;
const PER_TENANT = 12;
const TENANTS = ['north', 'south'] as const;
type Tenant = (typeof TENANTS)[number];

const pad = (n: number): string => String(n).padStart(2, '0');
const skillName = (tenant: Tenant | 'common', n: number): string => `${tenant}-task-${pad(n)}`;
const tenantSkills = (tenant: Tenant): string[] => Array.from({ length: PER_TENANT }, (_, n) => skillName(tenant, n));
const COMMON = Array.from({ length: 4 }, (_, n) => skillName('common', n));

function spec(name: string): SkillSpec {
  const [owner, , n] = name.split('-');
  return {
    name,
    description: `DESC-${name} Handles ${owner} ledger work number ${n}. Use when asked about ${owner} ledgers or ${owner} reports.`,
    body: `# ${name}\n\nBODY-${name}: follow these steps.\n`,
    files: { 'references/data.md': `FILE-${name}\n` },
  };
}

const other = (tenant: Tenant): Tenant => (tenant === 'north' ? 'south' : 'north');
const tenantOf = (i: number): Tenant => TENANTS[i % 2] as Tenant;

/** What conversation `i` asks, and how its model probes for the other tenant's skills. */
function inputOf(i: number): string {
  const tenant = tenantOf(i);
  const mention =
    i % 3 === 0 ? ` @${skillName(other(tenant), i % PER_TENANT)}` : i % 3 === 1 ? ` @${skillName(tenant, i % PER_TENANT)}` : '';
  return `conversation-${i}: help with ${tenant} and ${other(tenant)} ledgers${mention}`;
}

/**
 * The model's reply in `round` of conversation `i`: a probe for the other
 * tenant's skills, then a use of its own, then text. One call per round:
 * SISU's Anthropic adapter sends each tool result as a user message of its
 * own, which the protocol refuses after a round of several calls.
 */
function replyOf(i: number, round: number): ScriptedReply {
  const tenant = tenantOf(i);
  const theirs = skillName(other(tenant), (i * 7) % PER_TENANT);
  const ours = skillName(tenant, (i * 5) % PER_TENANT);
  const probes = [
    { name: 'use_skill', arguments: { skill_name: theirs } },
    { name: 'use_skill', arguments: { skill_name: theirs.slice(0, -1) } },
    { name: 'read_skill_resource', arguments: { skill_name: theirs, path: 'references/data.md' } },
    { name: 'find_skills', arguments: { query: `${other(tenant)} ledger reports`, limit: 20 } },
    { name: 'read_skill_resource', arguments: { skill_name: theirs, path: 'SKILL.md' } },
  ];
  const uses = [
    { name: 'use_skill', arguments: { skill_name: ours } },
    { name: 'read_skill_resource', arguments: { skill_name: ours, path: 'references/data.md' } },
  ];
  if (round === 1) return { toolCalls: [probes[i % probes.length] as (typeof probes)[number]] };
  if (round === 2) return { toolCalls: [uses[i % uses.length] as (typeof uses)[number]] };
  return `done ${i}`;
}
const ROUNDS = 3;

const conversationOf = (request: ScriptedRequest): number => {
  const user = request.messages.find((m) => m.role === 'user');
  const match = /conversation-(\d+)/.exec(user?.role === 'user' ? user.text : '');
  if (!match) throw new Error('a request without its conversation number');
  return Number(match[1]);
};

/**
 * How often `text` names or quotes anything of `tenant`'s skills, once the
 * model's own probes quoted back as "not found" are taken out.
 */
function appearances(text: string, tenant: Tenant): number {
  const echoes = new RegExp(`Skill "${tenant}-task-\\d*" not found`, 'g');
  const rest = text.replace(echoes, '');
  return rest.split(`${tenant}-task`).length - 1 + rest.split(`DESC-${tenant}`).length - 1;
}

/** Markers of `tenant`'s descriptions, instructions and files in a raw body (names may be the model's own probes there). */
function leakedMarkers(raw: string, tenant: Tenant): number {
  return ['DESC', 'BODY', 'FILE'].reduce((sum, kind) => sum + raw.split(`${kind}-${tenant}`).length - 1, 0);
}

/** Which provider's adapter conversation `i` runs on: both tenants on both, interleaved on the one instance. */
const providerOf = (i: number): Provider => PROVIDERS[Math.floor(i / 2) % PROVIDERS.length] as Provider;

/** The ways `text` (what the middleware wrote for `tenant`'s request) shows the other tenant's skills, or lacks its own. */
function problemsOf(where: string, text: string, raw: string, tenant: Tenant): string[] {
  const problems: string[] = [];
  if (leakedMarkers(raw, other(tenant)) > 0) problems.push(`${where}: ${other(tenant)}'s description, instructions or file`);
  if (appearances(text, other(tenant)) > 0) problems.push(`${where}: ${other(tenant)}'s skill named`);
  return problems;
}

describeSisu('two tenants on one middleware instance, 1,000 interleaved conversations over both adapters', () => {
  const sisu = realSisu();
  const skills = skillsFixture([...TENANTS.flatMap(tenantSkills), ...COMMON].map(spec));

  it("no tenant ever sees the other's skills, on either provider", { timeout: 120_000 }, async () => {
    const { host } = sisu;
    const rounds = new Map<number, number>();
    const script = (request: ScriptedRequest): ScriptedReply => {
      const i = conversationOf(request);
      const round = (rounds.get(i) ?? 0) + 1;
      rounds.set(i, round);
      return replyOf(i, round);
    };
    const models = new Map<Provider, { server: ScriptedServer; model: SisuLLM }>();
    for (const provider of PROVIDERS) {
      const server = await sisu.start(provider, script, { maxRequests: (CONVERSATIONS / PROVIDERS.length) * ROUNDS + 10 });
      models.set(provider, { server, model: provider.model(host, server) });
    }
    const asked = new Map<Tenant, number>();
    const skillsMw = skillsMiddleware({
      directories: [skills.root],
      // Small enough that the catalog is ranked and counts what it leaves out.
      catalogBudget: 1200,
      findSkills: true,
      visible: (skill, ctx) => {
        const tenant = ctx.state.tenant as Tenant;
        asked.set(tenant, (asked.get(tenant) ?? 0) + 1);
        return !skill.metadata.name.startsWith(`${other(tenant)}-`);
      },
    });
    const app = new host.core.Agent().use(host.core.inputToMessage).use(skillsMw).use(host.core.execute).handler();

    const started = performance.now();
    const answers: Array<{ tenant: Tenant; text: string }> = [];
    const failures: unknown[] = [];
    let nextConversation = 0;
    const worker = async (): Promise<void> => {
      for (let i = nextConversation++; i < CONVERSATIONS; i = nextConversation++) {
        const ctx = createCtx(host, models.get(providerOf(i))?.model as SisuLLM, { input: inputOf(i) });
        ctx.state.tenant = tenantOf(i);
        try {
          await app(ctx);
          const text = host.core.getExecutionResult(ctx)?.text;
          if (text !== `done ${i}`) throw new Error(`conversation ${i} ended with ${JSON.stringify(text)}`);
        } catch (error) {
          failures.push(error);
          continue;
        }
        for (const message of ctx.messages)
          if (message.role === 'tool') answers.push({ tenant: tenantOf(i), text: toolText(message.content) });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const wallMs = performance.now() - started;

    expect(failures).toEqual([]);
    // visible was asked once per skill per request, with that request's tenant.
    expect(asked.get('north')).toBe((CONVERSATIONS / 2) * (PER_TENANT * 2 + COMMON.length));
    expect(asked.get('south')).toBe((CONVERSATIONS / 2) * (PER_TENANT * 2 + COMMON.length));

    // Checked in plain code and asserted once: an expect per request was a tenth of this test's CPU.
    const problems: string[] = [];
    let withOwn = 0;
    for (const [provider, { server }] of models) {
      expect(server.violations).toEqual([]);
      expect(server.requests).toHaveLength((CONVERSATIONS / PROVIDERS.length) * ROUNDS);
      for (const request of server.requests) {
        const tenant = tenantOf(conversationOf(request));
        // What the middleware wrote into the request: system prompt, tool definitions, tool results.
        const written = [
          request.system,
          JSON.stringify(request.tools),
          ...request.messages.map((m) => (m.role === 'tool' ? toolText(m.content) : '')),
        ].join('\n');
        problems.push(...problemsOf(`${provider.name} request ${request.index}`, written, JSON.stringify(request.body), tenant));
        // The tenant's own skills are there: the check can see a skill when one is present.
        if (appearances(written, tenant) > 0) withOwn++;
      }
    }
    for (const [n, answer] of answers.entries()) problems.push(...problemsOf(`tool answer ${n}`, answer.text, answer.text, answer.tenant));
    expect(problems.slice(0, 10), `${problems.length} problems, the first 10 shown`).toEqual([]);
    expect(withOwn).toBe(CONVERSATIONS * ROUNDS);
    // Every own-skill activation and read worked; every probe of the other tenant answered as for a skill never installed.
    const own = answers.filter((a) => a.text.startsWith('<skill name="'));
    expect(own.length).toBeGreaterThanOrEqual(CONVERSATIONS / 2);
    expect(answers.filter((a) => a.text.startsWith('<skill_resource ')).length).toBe(CONVERSATIONS / 2);
    expect(answers.filter((a) => a.text.includes('not found')).length).toBeGreaterThanOrEqual(CONVERSATIONS * 0.6);
    console.info(
      `[tenants] ${CONVERSATIONS} conversations over ${PROVIDERS.map((p) => p.name).join(' and ')} (${CONVERSATIONS * ROUNDS} model ` +
        `requests), ${CONCURRENCY} at a time, ${Math.round(wallMs)} ms; ${answers.length} tool answers checked, 0 cross-tenant appearances`,
    );
  });
});
