/**
 * `${CLAUDE_PLUGIN_ROOT}`: the nearest folder above a skill that holds
 * `.claude-plugin/` (a Claude Code plugin ships its skills under
 * `<plugin>/skills/`). Looked up through the configured filesystem, once per
 * skill folder, and only for skills whose instructions use the placeholder.
 * When there is none the placeholder stays as written, with one warning per
 * skill.
 */
import { dirname, join } from 'node:path';
import { PLUGIN_ROOT_PLACEHOLDER } from '../base/arguments.js';
import type { SkillsFileSystem } from '../base/fs.js';
import type { HostLogger } from '../base/host.js';
import type { Skill } from '../base/model.js';

const PLUGIN_FOLDER = '.claude-plugin';
/** Codes that mean "not here": keep looking further up. */
const NOT_HERE = new Set(['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM']);

export class PluginRoots {
  private readonly found = new Map<string, Promise<string | undefined>>();
  private readonly warned = new Set<string>();

  constructor(private readonly fs: SkillsFileSystem) {}

  /** The plugin folder for `skill`; undefined when its instructions do not use the placeholder, or there is none (warned once). */
  async of(skill: Skill, log: HostLogger | undefined): Promise<string | undefined> {
    if (!skill.instructions.includes(PLUGIN_ROOT_PLACEHOLDER)) return undefined;
    let pending = this.found.get(skill.directory);
    if (!pending) {
      pending = this.lookUp(skill.directory);
      this.found.set(skill.directory, pending);
      // A failed look-up is not kept: the next activation tries again.
      pending.catch(() => this.found.delete(skill.directory));
    }
    const root = await pending;
    if (root === undefined && !this.warned.has(skill.path)) {
      this.warned.add(skill.path);
      log?.warn('[skills] ${CLAUDE_PLUGIN_ROOT} left as written: no folder above the skill holds .claude-plugin/', {
        skill: skill.metadata.name,
        path: skill.path,
        hint: 'install the skill inside its plugin folder, or write the path relative to ${CLAUDE_SKILL_DIR}',
      });
    }
    return root;
  }

  private async lookUp(skillDir: string): Promise<string | undefined> {
    for (let dir = dirname(skillDir); ; dir = dirname(dir)) {
      try {
        if ((await this.fs.stat(join(dir, PLUGIN_FOLDER))).isDirectory()) return dir;
      } catch (error) {
        if (!NOT_HERE.has((error as { code?: unknown }).code as string)) throw error;
      }
      if (dirname(dir) === dir) return undefined;
    }
  }
}
