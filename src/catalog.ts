/**
 * The system-prompt section that lists the skills. Pure: skills in, text out,
 * and a pure function that puts that text into a message list exactly once.
 */
import type { HostMessage, SkillEntry } from './types.js';
import { oneLine } from './text.js';

/** Opening and closing tags of the section; used to find it again on a rerun. */
export const CATALOG_OPEN = '<available_skills>';
export const CATALOG_CLOSE = '</available_skills>';

export interface CatalogEntry {
  name: string;
  description: string;
}

export function catalogEntries(skills: readonly SkillEntry[]): CatalogEntry[] {
  return skills.map((skill) => ({ name: skill.metadata.name, description: oneLine(skill.metadata.description) }));
}

/** The whole section: a short preface, one line per skill, and how to use them. */
export function renderCatalog(entries: readonly CatalogEntry[], toolName = 'use_skill'): string {
  const lines = entries.map((entry) => `- ${entry.name}: ${entry.description}`);
  return [
    CATALOG_OPEN,
    'Skills are folders of instructions for specific tasks. Each line below is a skill name and when to use it.',
    ...lines,
    `When a task matches a skill, call the \`${toolName}\` tool with its \`skill_name\` before you start, then follow the instructions it returns. Call it once per skill; do not guess what a skill says.`,
    CATALOG_CLOSE,
  ].join('\n');
}

/**
 * Put `section` into the first system message (or a new one at the top),
 * replacing a section this package added earlier so reruns never duplicate it.
 * Returns a new message list; the input is not changed.
 */
export function withCatalog<M extends HostMessage>(messages: readonly M[], section: string): Array<M | HostMessage> {
  const index = messages.findIndex((m) => m.role === 'system');
  if (index === -1) return [{ role: 'system', content: section }, ...messages];
  const system = messages[index] as M;
  const content = typeof system.content === 'string' ? system.content : '';
  const start = content.indexOf(CATALOG_OPEN);
  const end = content.indexOf(CATALOG_CLOSE, start);
  let updated: string;
  if (start !== -1 && end !== -1) {
    updated = content.slice(0, start) + section + content.slice(end + CATALOG_CLOSE.length);
  } else {
    updated = content.length > 0 ? `${content}\n\n${section}` : section;
  }
  const copy = [...messages] as Array<M | HostMessage>;
  copy[index] = { ...system, content: updated };
  return copy;
}
