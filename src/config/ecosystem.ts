/**
 * The folders other agent tools keep skills in, so configuration can name
 * them without spelling out paths: `directories: skillDirectories({ tools:
 * ['claude', 'agents'], scope: 'both', cwd })`. It returns absolute paths and
 * touches nothing on disk: the middleware scans only what it is given, and a
 * folder that does not exist is the usual DIRECTORY_NOT_FOUND warning there.
 *
 * Order (the middleware's precedence, first wins on a name clash): every
 * project folder, then every user folder; within each, the tools in the
 * order given, and each tool's folders in the order of SKILL_TOOL_FOLDERS.
 * A path that two tools share (`.agents/skills`) appears once, where it comes
 * first. Only the folder at `cwd` is returned: tools that also look in parent
 * folders up to the repository root (Codex, OpenCode) are not imitated; pass
 * the repository root as `cwd`.
 *
 * Each folder is checked against the tool's own documentation, cited beside
 * it. Tools with no documented skills folder are not listed.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describeValue, failOption } from './errors.js';
import { editDistance } from '../base/text.js';

/** One tool's skill folders: `project` relative to the project (`cwd`), `user` relative to the home directory. */
export interface ToolSkillFolders {
  readonly project: readonly string[];
  readonly user: readonly string[];
}

export const SKILL_TOOL_FOLDERS = {
  // Claude Code: project .claude/skills, personal ~/.claude/skills.
  // https://code.claude.com/docs/en/skills
  claude: { project: ['.claude/skills'], user: ['.claude/skills'] },
  // The cross-tool folder of the Agent Skills ecosystem, read by Codex, Copilot, Gemini CLI, OpenCode
  // and Cursor, and where `npx skills add <repo>` installs for them.
  // https://docs.github.com/en/copilot/how-tos/use-copilot-agents/cloud-agent/create-skills
  // https://github.com/vercel-labs/skills#supported-agents
  agents: { project: ['.agents/skills'], user: ['.agents/skills'] },
  // Codex: REPO $CWD/.agents/skills, USER $HOME/.agents/skills (current docs); $CWD/.codex/skills and
  // ~/.codex/skills (CODEX_HOME) in earlier versions of the same page, still written by `npx skills add -a codex -g`.
  // https://developers.openai.com/codex/skills
  codex: { project: ['.agents/skills', '.codex/skills'], user: ['.agents/skills', '.codex/skills'] },
  // GitHub Copilot: project .github/skills, personal ~/.copilot/skills (it also reads the claude and agents folders).
  // https://docs.github.com/en/copilot/how-tos/use-copilot-agents/cloud-agent/create-skills
  github: { project: ['.github/skills'], user: ['.copilot/skills'] },
  // OpenCode: project .opencode/skills, global ~/.config/opencode/skills (it also reads the claude and agents folders).
  // https://opencode.ai/docs/skills
  opencode: { project: ['.opencode/skills'], user: ['.config/opencode/skills'] },
  // Cline: project .cline/skills (recommended) or .clinerules/skills, global ~/.cline/skills.
  // https://docs.cline.bot/customization/skills
  cline: { project: ['.cline/skills', '.clinerules/skills'], user: ['.cline/skills'] },
  // Gemini CLI: workspace .gemini/skills, user ~/.gemini/skills (each with the .agents/skills alias).
  // https://geminicli.com/docs/cli/using-agent-skills/
  gemini: { project: ['.gemini/skills'], user: ['.gemini/skills'] },
  // Cursor: project .cursor/skills, user ~/.cursor/skills (it also reads the agents, claude and codex folders).
  // https://cursor.com/docs/context/skills
  cursor: { project: ['.cursor/skills'], user: ['.cursor/skills'] },
} as const satisfies Record<string, ToolSkillFolders>;

export type SkillTool = keyof typeof SKILL_TOOL_FOLDERS;

/** The tool names `skillDirectories` knows, in the order of SKILL_TOOL_FOLDERS. */
export const SKILL_TOOLS = Object.keys(SKILL_TOOL_FOLDERS) as SkillTool[];

export type SkillScope = 'project' | 'user' | 'both';

export interface SkillDirectoriesOptions {
  /** Whose folders, in precedence order. */
  tools: readonly SkillTool[];
  /** The project's folders, the user's (home) folders, or both (project first). */
  scope: SkillScope;
  /** The project root that project folders are relative to. */
  cwd: string;
  /** @default os.homedir() */
  home?: string;
}

const SCOPES: readonly SkillScope[] = ['project', 'user', 'both'];

/** Names people reach for first, mapped to ours: a did-you-mean that spelling distance cannot find. */
const ALIASES: Readonly<Record<string, SkillTool>> = {
  'claude-code': 'claude',
  copilot: 'github',
  'github-copilot': 'github',
  'gemini-cli': 'gemini',
  universal: 'agents',
};

const EXAMPLE = "skillDirectories({ tools: ['claude', 'agents'], scope: 'both', cwd: process.cwd() })";

function isKnown(tool: unknown): tool is SkillTool {
  return typeof tool === 'string' && Object.prototype.hasOwnProperty.call(SKILL_TOOL_FOLDERS, tool);
}

function suggestion(tool: string): string {
  const alias = ALIASES[tool.toLowerCase()];
  if (alias !== undefined) return ` Did you mean '${alias}'?`;
  const close = SKILL_TOOLS.find((known) => editDistance(tool.toLowerCase(), known, 2) <= 2);
  return close === undefined ? '' : ` Did you mean '${close}'?`;
}

function checkTools(tools: unknown): SkillTool[] {
  if (!Array.isArray(tools) || tools.length === 0) {
    failOption('tools', `must be a non-empty array of tool names (${SKILL_TOOLS.join(', ')}). Example: ${EXAMPLE}.`);
  }
  return tools.map((tool: unknown, i) => {
    if (isKnown(tool)) return tool;
    const shown = typeof tool === 'string' ? `'${tool}'` : String(tool);
    const hint = typeof tool === 'string' ? suggestion(tool) : '';
    failOption(`tools[${i}]`, `is the unknown tool ${shown}.${hint} Known tools: ${SKILL_TOOLS.join(', ')}.`);
  });
}

/**
 * The conventional skill folders of `tools`, as absolute paths, in
 * precedence order (see the module comment). Throws SkillsConfigError for an
 * unknown tool or scope, naming the known ones. Reads nothing from disk.
 */
export function skillDirectories(options: SkillDirectoriesOptions): string[] {
  if (typeof options !== 'object' || options === null) failOption(undefined, `options are required. Example: ${EXAMPLE}.`);
  const tools = checkTools(options.tools);
  const { scope, cwd, home } = options;
  if (!SCOPES.includes(scope)) {
    failOption('scope', `must be one of ${SCOPES.map((s) => `'${s}'`).join(', ')}, got ${describeValue(scope)}.`);
  }
  if (typeof cwd !== 'string' || cwd === '') failOption('cwd', `must be the project folder, a non-empty string. Example: ${EXAMPLE}.`);
  if (home !== undefined && (typeof home !== 'string' || home === ''))
    failOption('home', 'must be a non-empty string when given (default: the home directory).');
  const roots: Array<{ base: string; pick: (folders: ToolSkillFolders) => readonly string[] }> = [];
  if (scope !== 'user') roots.push({ base: resolve(cwd), pick: (folders) => folders.project });
  if (scope !== 'project') roots.push({ base: resolve(home ?? homedir()), pick: (folders) => folders.user });
  const paths: string[] = [];
  for (const { base, pick } of roots) {
    for (const tool of tools) {
      for (const folder of pick(SKILL_TOOL_FOLDERS[tool])) {
        const path = join(base, folder);
        if (!paths.includes(path)) paths.push(path);
      }
    }
  }
  return paths;
}
