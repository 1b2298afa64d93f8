/**
 * read_skill_resource: level 3 of progressive disclosure. Returns one of a
 * skill's listed files as text, through the confined reader. Never throws:
 * every refusal or failure is a message the model can act on.
 */
import { z } from 'zod';
import { logEvent, type SkillEvent } from '../base/skill-event.js';
import type { HostLogger, HostMessage } from '../base/host.js';
import { messageText, toolResultText } from '../base/message-text.js';

import { nodeFileSystem } from '../base/fs.js';
import { DEFAULTS } from '../config/defaults.js';
import {
  createResourceReader,
  DEFAULT_LINE_LIMIT,
  type ReadText,
  type ResourceReader,
  type ResourceReaderSettings,
  type ReadBudget,
} from '../resources/resource-reader.js';

import { createSkillIndex } from '../index/skill-index.js';
import { formatBytes } from '../base/text.js';
import { READ_RESOURCE_TOOL } from '../base/tool-names.js';
import type { Skill } from '../base/model.js';
import { skillTool, type IndexSource, type SkillTool } from './skill-tool.js';
import { unknownSkillMessage } from './unknown-skill.js';
import { SkillRanker } from '../catalog/skill-ranker.js';
import type { Ranker } from '../catalog/rank/score.js';

export { READ_RESOURCE_TOOL } from '../base/tool-names.js';

/**
 * Arguments of read_skill_resource. Plain zod 3 strings and numbers on
 * purpose: SISU's adapters read `_def.typeName` and know only a few types.
 */
export const ReadResourceArgsSchema = z.object({
  skill_name: z.string().describe('Name of the skill the file belongs to, as listed in <available_skills>.'),
  path: z.string().describe('Path of the file relative to the skill folder, exactly as use_skill listed it, e.g. "references/guide.md".'),
  offset: z.number().int().optional().describe('First line to read, counting from 1. Default 1.'),
  limit: z.number().int().optional().describe(`How many lines to read. Default ${DEFAULT_LINE_LIMIT}.`),
});

export type ReadResourceArgs = z.infer<typeof ReadResourceArgsSchema>;

/**
 * Settings of a hand-wired read_skill_resource tool (createReadResourceTool),
 * each defaulting to the middleware option of the same name.
 */
export type ReadResourceSettings = Partial<ResourceReaderSettings>;

function attribute(value: string): string {
  return value.replace(/&/gu, '&amp;').replace(/"/gu, '&quot;').replace(/</gu, '&lt;');
}

/** The text the model gets for a successful read. */
function renderRead(skillName: string, result: ReadText): string {
  const lines = result.totalLines === 0 ? 'empty' : `${result.startLine}-${result.endLine} of ${result.totalLines}`;
  const out = [
    `<skill_resource skill="${attribute(skillName)}" path="${attribute(result.path)}" size="${formatBytes(result.size)}" lines="${lines}">`,
    result.totalLines === 0 ? '(empty file)' : result.text,
    '</skill_resource>',
  ];
  if (result.endLine < result.totalLines) {
    const next = JSON.stringify({ skill_name: skillName, path: result.path, offset: result.endLine + 1 });
    out.push(
      `Showing lines ${result.startLine}-${result.endLine} of ${result.totalLines}. To read on, call ${READ_RESOURCE_TOOL} with ${next}.`,
    );
  }
  return out.join('\n');
}

const READ_OPENING = /^<skill_resource skill="([^"]*)" path="[^"]*" size="[^"]*" lines="([^"]*)">\n/u;
const READ_CLOSING = '\n</skill_resource>';

function unescapeAttribute(value: string): string {
  return value
    .replace(/&quot;/gu, '"')
    .replace(/&lt;/gu, '<')
    .replace(/&amp;/gu, '&');
}

/**
 * The bytes each skill's reads returned in `messages`, counted as the reader
 * charges them (the text of each successful read, UTF-8): read back from
 * renderRead's answers, so a conversation resumed in a new ctx keeps spending
 * the per-run budget where it left off.
 */
export function bytesReadIn(messages: readonly HostMessage[]): ReadBudget {
  const spent: ReadBudget = new Map();
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    // Cheap test first: other tool results are never decoded.
    const raw = messageText(message.content);
    if (raw === undefined || !(raw.startsWith('<skill_resource skill="') || raw.startsWith('"<skill_resource skill=\\"'))) continue;
    const text = toolResultText(message.content) ?? '';
    const opening = READ_OPENING.exec(text);
    const end = text.lastIndexOf(READ_CLOSING);
    if (!opening || end < 0) continue;
    const skill = unescapeAttribute(opening[1] ?? '');
    const bytes = opening[2] === 'empty' ? 0 : byteLength(text.slice(opening[0].length, end));
    spent.set(skill, (spent.get(skill) ?? 0) + bytes);
  }
  return spent;
}

const byteLength = (text: string): number => new TextEncoder().encode(text).length;

export interface ReadResourceBinding {
  source: IndexSource;
  /** The ranker over the source's skills, for an unknown name's suggestions (built by its owner on first use). */
  ranker: () => Ranker;
  /** One reader per middleware: its file cache is shared by every run. */
  reader: ResourceReader;
  /** The run's bytes read per skill; absent for a hand-wired tool (no per-run limit). */
  budget?: ReadBudget;
  /** Where read events go (the run's span and `onEvent`); by default a span on the tool's log. */
  emit?: (event: SkillEvent, log: HostLogger | undefined) => void;
}

/** read_skill_resource bound to a source of skills and a reader: a run's, in the middleware, or a fixed list (createReadResourceTool). */
export function bindReadResourceTool({
  source,
  ranker,
  reader,
  budget,
  emit = logEvent,
}: ReadResourceBinding): SkillTool<typeof ReadResourceArgsSchema> {
  return skillTool({
    name: READ_RESOURCE_TOOL,
    description:
      'Read one file bundled with a skill (a reference, template or script listed by use_skill), ' +
      "as text. Only the skill's listed files can be read; use offset/limit for long files.",
    schema: ReadResourceArgsSchema,
    accepts: ReadResourceArgsSchema,
    source,
    noSkills: 'No skills are loaded, so there are no skill files to read.',
    usage(index) {
      const example = JSON.stringify({ skill_name: index.skills[0]?.metadata.name ?? 'my-skill', path: 'references/guide.md' });
      return `${READ_RESOURCE_TOOL} needs \`skill_name\` and \`path\` strings (and optionally whole-number \`offset\` and \`limit\`), e.g. ${example}.`;
    },
    async run({ skill_name: rawName, path, offset, limit }, index, ctx) {
      const name = rawName.trim();
      const skill = index.get(name) ? await index.load(name) : undefined;
      if (!skill) return unknownSkillMessage(name, index, ranker);
      const outcome = await reader.read({ skill, path, offset, limit, budget });
      // `trust`'s finding, given once: the file is not as its publisher signed it.
      if (outcome.diagnostic) ctx.log?.warn('[skills] untrusted', outcome.diagnostic);
      if (!outcome.ok) {
        const log = SECURITY_REASONS.has(outcome.reason) ? ctx.log?.warn : ctx.log?.debug;
        log?.call(ctx.log, '[skills] resource refused', { skill: name, path, reason: outcome.reason });
        const event = {
          type: 'resource-read',
          skill: name,
          route: 'model',
          size: 0,
          outcome: 'refused',
          reason: outcome.reason,
          path,
        } as const;
        emit(event, ctx.log);
        return `Cannot read "${path}" from skill "${name}": ${outcome.message}`;
      }
      ctx.log?.info('[skills] resource read', { skill: name, path: outcome.path, bytes: outcome.bytes, cached: outcome.cached });
      const answer = renderRead(name, outcome);
      emit({ type: 'resource-read', skill: name, route: 'model', size: answer.length, outcome: 'ok', path: outcome.path }, ctx.log);
      return answer;
    },
    failed: (reason) => `Could not read the skill file: ${reason}. Continue without it.`,
  });
}

/** Refusals worth a warning in the logs: something tried to reach outside the skill or a secret. */
const SECURITY_REASONS = new Set<string>([
  'absolute',
  'drive',
  'url',
  'parent',
  'encoded',
  'lookalike',
  'hidden-characters',
  'nul',
  'secret',
  'outside',
  'swapped',
  'untrusted',
]);

/**
 * A read_skill_resource tool over a fixed list of skills, for apps that wire
 * tools by hand. It has no run, so `maxSkillSize` (a per-run limit) does not
 * apply; `maxFileSize` does.
 */
export function createReadResourceTool(
  skills: readonly Skill[],
  settings: ReadResourceSettings = {},
): SkillTool<typeof ReadResourceArgsSchema> {
  const index = createSkillIndex({ skills });
  const reader = createResourceReader({
    fs: settings.fs ?? nodeFileSystem,
    maxFileSize: settings.maxFileSize ?? DEFAULTS.maxFileSize,
    maxSkillSize: settings.maxSkillSize ?? DEFAULTS.maxSkillSize,
    cacheTtl: settings.cacheTtl ?? DEFAULTS.cacheTtl,
    ...(settings.secretPatterns === undefined ? {} : { secretPatterns: settings.secretPatterns }),
    ...(settings.now === undefined ? {} : { now: settings.now }),
  });
  const ranker = new SkillRanker(index.skills);
  return bindReadResourceTool({ source: () => index, ranker: () => ranker.get(), reader });
}
