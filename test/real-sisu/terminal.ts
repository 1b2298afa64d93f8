/**
 * SISU's terminal tool (@sisu-ai/tool-terminal 10.0.0, compiled in
 * ../shared/sisu) for the tests of skills that run code, and a scripted model
 * that runs a skill's scripts the way a model does: it activates the skill,
 * reads the folder the activation reports and the commands its instructions
 * give, and calls the terminal tool (under SISU's example alias `bash`) with
 * each command, one per round.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ScriptedReply, ScriptedRequest } from '../../demo/scripted-model.mjs';
import { SISU_MODULES } from '../helpers/shared.js';
import { toolText, type SisuMiddleware, type SisuTool } from './host.js';

export interface TerminalConfig {
  roots: string[];
  readOnlyRoots?: string[];
  commands?: { allow: string[] };
  execution?: { timeoutMs?: number; pathDirs?: string[] };
  allowPipe?: boolean;
  allowSequence?: boolean;
}

export interface Terminal {
  tools: SisuTool[];
}

export interface TerminalModule {
  createTerminalTool(config: TerminalConfig): Terminal;
}

export interface RegisterTools {
  registerTools(tools: SisuTool[], options?: { aliases?: Record<string, string> }): SisuMiddleware;
}

/** SISU's example aliases: skills say "run `bash …`" and "use `read_file`". */
export const EXAMPLE_ALIASES = { terminalRun: 'bash', terminalReadFile: 'read_file', terminalCd: 'cd' };

export async function loadTerminal(): Promise<TerminalModule> {
  return (await import(pathToFileURL(path.join(SISU_MODULES, '@sisu-ai', 'tool-terminal', 'dist', 'index.js')).href)) as TerminalModule;
}

/**
 * Where the terminal tool finds interpreters: this test's own Node first (CI
 * runs the suite on 20, 22 and 24), then the tool's default folders.
 */
export const PATH_DIRS = [path.dirname(process.execPath), '/usr/bin', '/bin', '/usr/local/bin'];

/** The folder of PATH_DIRS holding `name`, if one does. */
export function interpreterIn(name: string): string | undefined {
  return PATH_DIRS.find((dir) => existsSync(path.join(dir, name)));
}

/** Whether python3 (from PATH_DIRS) runs here: the Python cases skip, saying so, without it. */
export const hasPython = ((): boolean => {
  const dir = interpreterIn('python3');
  if (dir === undefined) return false;
  try {
    execFileSync(path.join(dir, 'python3'), ['-c', 'pass']);
    return true;
  } catch {
    return false;
  }
})();

/** A command for the terminal tool, and the folder it runs in when not the first root. */
export interface Command {
  command: string;
  cwd?: string;
}

/** The text of every tool result the request carries, with its index among the messages. */
function resultsOf(request: ScriptedRequest): Array<{ at: number; text: string }> {
  const out: Array<{ at: number; text: string }> = [];
  request.messages.forEach((message, at) => {
    if (message.role === 'tool') out.push({ at, text: toolText(message.content) });
  });
  return out;
}

/** The latest activation of `skill` the request shows the model (a use_skill answer, or one put in by the middleware). */
export function latestActivation(request: ScriptedRequest, skill: string): { at: number; text: string; folder: string } | undefined {
  const found = resultsOf(request)
    .filter((result) => result.text.startsWith(`<skill name="${skill}">`))
    .at(-1);
  if (!found) return undefined;
  const folder = /^Skill directory: (.*)$/mu.exec(found.text)?.[1];
  if (folder === undefined) throw new Error(`the activation of ${skill} names no folder:\n${found.text}`);
  return { ...found, folder };
}

/** The index of the latest user message. */
function latestUser(request: ScriptedRequest): number {
  for (let at = request.messages.length - 1; at >= 0; at--) if (request.messages[at]?.role === 'user') return at;
  return -1;
}

/** How many times the model called `tool` after message `from`. */
function callsAfter(request: ScriptedRequest, from: number, tool: string): number {
  let calls = 0;
  request.messages.forEach((message, at) => {
    if (at > from && message.role === 'assistant') calls += message.toolCalls.filter((call) => call.name === tool).length;
  });
  return calls;
}

/**
 * A model that runs `skill`'s scripts. On a turn whose user message comes
 * after the skill's latest activation, it calls use_skill first; then, one
 * per round, it calls `bash` with each command `commandsOf` reads from the
 * latest activation (its text, and the folder it reports); then it answers
 * `done`. A use_skill answer that is not an activation ends the turn with
 * `stuck: <answer>`, for the test to see.
 */
export function scriptRunner(skill: string, commandsOf: (activation: string, folder: string) => Command[]) {
  return (request: ScriptedRequest): ScriptedReply => {
    const activation = latestActivation(request, skill);
    const last = request.messages.at(-1);
    if (!activation || activation.at < latestUser(request)) {
      const shown = last?.role === 'tool' ? toolText(last.content) : undefined;
      if (shown !== undefined && callsAfter(request, latestUser(request), 'use_skill') > 0) return `stuck: ${shown}`;
      return { toolCalls: [{ name: 'use_skill', arguments: { skill_name: skill } }] };
    }
    const commands = commandsOf(activation.text, activation.folder);
    const done = callsAfter(request, activation.at, 'bash');
    const next = commands[done];
    if (!next) return 'done';
    return { toolCalls: [{ name: 'bash', arguments: { ...next } }] };
  };
}

/** Commands written in backticks that start with one of `interpreters`, exactly as the instructions give them. */
export function quotedCommands(text: string, interpreters: readonly string[] = ['python3', 'node', 'bash']): Command[] {
  const found: Command[] = [];
  for (const match of text.matchAll(/`([^`\n]+)`/gu)) {
    const command = (match[1] as string).trim();
    if (interpreters.some((name) => command.startsWith(`${name} `))) found.push({ command });
  }
  return found;
}

/** What the terminal tool answered each `bash` call of a request, decoded, in order. */
export function terminalAnswers(
  request: ScriptedRequest,
): Array<{ exitCode: number; stdout: string; stderr: string; policy: { allowed: boolean } }> {
  const ids = new Set<string>();
  for (const message of request.messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls) if (call.name === 'bash') ids.add(call.id);
  }
  return request.messages
    .filter((message): message is Extract<typeof message, { role: 'tool' }> => message.role === 'tool' && ids.has(message.toolCallId))
    .map((message) => JSON.parse(message.content) as { exitCode: number; stdout: string; stderr: string; policy: { allowed: boolean } });
}
