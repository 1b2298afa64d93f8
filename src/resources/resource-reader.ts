/**
 * Confined reading of a skill's bundled files (level 3). Everything is checked
 * again at read time, because the folder may have changed since it was
 * listed: the path, the listing, real paths (symlinks), file type, size,
 * binary content and the per-run read budget. Never throws.
 */
import { relative, sep } from 'node:path';
import { TOOL_DEFAULTS } from '../config/defaults.js';
import { errorCode, errorReason, type FileHandle, type FileStats, type SkillsFileSystem } from '../base/fs.js';
import { hasHiddenCharacters } from '../base/hidden-characters.js';
import { childPath, isSameOrInside } from '../base/paths.js';
import { checkResourcePath, type PathProblem } from './resource-path.js';
import { createSecretMatcher, type SecretMatcher } from '../config/secrets.js';
import { SKILL_FILE } from '../base/skill-file.js';
import { closestNames, formatBytes } from '../base/text.js';
import { USE_SKILL_TOOL } from '../base/tool-names.js';
import type { Skill, SkillResource } from '../base/model.js';
import type { Diagnostic } from '../base/diagnostics.js';
import { sha256Hex } from '../trust/digest.js';

export interface ResourceReaderSettings {
  fs: SkillsFileSystem;
  /** Largest file returned, in bytes. */
  maxFileSize: number;
  /** Most bytes returned per skill per run (counted in the request's `budget`). */
  maxSkillSize: number;
  /** Added to DEFAULT_SECRET_PATTERNS. */
  secretPatterns?: readonly string[];
  /** How long a read is reused while the file's mtime and size are unchanged, in ms. `0` never reuses. */
  cacheTtl: number;
  /** Clock, for tests. */
  now?: () => number;
  /** Checks what is served against what its publisher signed (the `trust` option); none: nothing is checked. */
  integrity?: ReadIntegrity;
}

/** What the integrity check says of a file: refuse it (with why), and the diagnostic to give, if one is new. */
export interface IntegrityVerdict {
  refuse: boolean;
  message: string;
  diagnostic?: Diagnostic;
}

/**
 * The `trust` option's hold on reads: a file the skill does not list may be
 * one added after signing (said so, not "not listed"); a file about to be
 * served is checked by the SHA-256 of the very bytes read.
 */
export interface ReadIntegrity {
  unsigned(skill: Skill, path: string): IntegrityVerdict | undefined;
  verify(skill: Skill, path: string, sha256: string, size: number): IntegrityVerdict | undefined;
}

export type RefusalReason =
  | PathProblem
  | 'secret'
  | 'not-listed'
  | 'outside'
  | 'swapped'
  | 'missing'
  | 'not-a-file'
  | 'too-large'
  | 'binary'
  | 'budget'
  | 'bad-range'
  | 'unreadable'
  | 'untrusted';

/** Read budget: bytes returned so far, per skill name (a run keeps one). */
export type ReadBudget = Map<string, number>;

export interface ReadRequest {
  skill: Skill;
  path: string;
  /** First line to return, 1-based. Default 1. */
  offset?: number;
  /** Most lines to return. Default DEFAULT_LINE_LIMIT. */
  limit?: number;
  /**
   * The run's bytes read per skill, charged by this read. Without one (a
   * hand-wired tool has no run) only the per-file limit applies.
   */
  budget?: ReadBudget;
}

/** A successful read: a window of the file's lines, and what it cost. */
export interface ReadText extends LineWindow {
  /** The clean relative path that was read. */
  path: string;
  /** File size in bytes. */
  size: number;
  /** Bytes charged to the skill's budget (the returned text, UTF-8). */
  bytes: number;
  /** Bytes of the budget left for this skill in this run. */
  remaining: number;
  cached: boolean;
  /** `trust` in report mode: served, but not as signed. */
  diagnostic?: Diagnostic;
}

export interface Refusal {
  ok: false;
  reason: RefusalReason;
  /** A sentence the model can act on: why, and what to do instead. */
  message: string;
  /** A refusal by `trust`: the diagnostic to log, the first time it is given. */
  diagnostic?: Diagnostic;
}

export type ReadOutcome = ReadText | Refusal;

export interface ResourceReader {
  read(request: ReadRequest): Promise<ReadOutcome>;
}

/** Lines returned when the caller gives no `limit`. */
export const DEFAULT_LINE_LIMIT = TOOL_DEFAULTS.readLines;
/** Bytes sniffed for binary content. */
export const BINARY_SNIFF_BYTES = 8 * 1024;
/** The read cache keeps at most this many files and bytes; the oldest go first. */
const CACHE_MAX_ENTRIES = 256;
const CACHE_MAX_BYTES = 16 * 1024 * 1024;
/**
 * No single read allocates more than this, whatever maxFileSize says (it may
 * be Infinity): a huge (or sparse) file is refused before it is opened.
 */
const READ_CEILING_BYTES = 64 * 1024 * 1024;
/** How many similar paths a "not listed" refusal suggests. */
const SUGGESTED_PATHS = 5;

/** NUL bytes, or bytes that are not UTF-8 (a sequence cut at the end of `block` is allowed). */
export function looksBinary(block: Uint8Array): boolean {
  if (block.includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(block, { stream: true });
    return false;
  } catch {
    return true;
  }
}

/** A file's content as read; `sha256` (hex, of the bytes) when an integrity check asks for it. */
type Content = { kind: 'text'; text: string; sha256?: string } | { kind: 'binary'; sha256?: string };

function refuse(reason: RefusalReason, message: string): Refusal {
  return { ok: false, reason, message };
}

/** The refusal for a file-system error while reading a listed file: gone since it was listed, or unreadable. */
function fileProblem(error: unknown, verb: 'read' | 'opened'): Refusal {
  if (errorCode(error) === 'ENOENT')
    return refuse('missing', 'it was listed but no longer exists (moved or deleted since). Continue without it.');
  return refuse('unreadable', `it cannot be ${verb} (${errorReason(error)}).`);
}

const byteLength = (text: string): number => new TextEncoder().encode(text).length;

/** `isSecret`: the matcher for `settings.secretPatterns`, when the caller already made one (the middleware shares its own). */
export function createResourceReader(
  settings: ResourceReaderSettings,
  isSecret: SecretMatcher = createSecretMatcher(settings.secretPatterns),
): ResourceReader {
  const { fs, maxFileSize, maxSkillSize, integrity } = settings;
  const cache = new ReadCache(settings.cacheTtl, settings.now ?? Date.now);
  // Whatever maxFileSize says (it may be Infinity), no single read allocates more than the ceiling.
  const maxBytes = Math.min(maxFileSize, READ_CEILING_BYTES);

  async function read(request: ReadRequest): Promise<ReadOutcome> {
    const { skill } = request;
    const target = await checkTarget(fs, isSecret, skill, request.path);
    if (!target.ok) return target.reason === 'not-listed' ? (unsignedRefusal(integrity, skill, request.path) ?? target) : target;
    const stats = await checkFile(fs, target.real, maxBytes);
    if (!('size' in stats)) return stats;
    const spent = request.budget?.get(skill.metadata.name) ?? 0;
    if (spent >= maxSkillSize) return budgetSpent(skill, spent, maxSkillSize);

    // With an integrity check, only a read that kept its bytes' hash is reused.
    const cached = cache.get(target.real, stats);
    const hit = integrity && cached?.sha256 === undefined ? undefined : cached;
    const content = hit ?? (await readContent(fs, target.real, stats, integrity !== undefined));
    if (!('kind' in content)) return content;
    if (!hit) cache.set(target.real, stats, content);
    // Checked against the very bytes about to be served (cached ones included: a newer manifest may vouch for others).
    const verdict = integrity?.verify(skill, target.path, content.sha256 ?? '', stats.size);
    if (verdict?.refuse) return { ...refuse('untrusted', verdict.message), ...withDiagnostic(verdict) };
    const outcome = serve(content, hit !== undefined, target, stats, request, spent);
    return outcome.ok ? { ...outcome, ...withDiagnostic(verdict) } : outcome;
  }

  /** What a read returns once the file's content is in hand: a window of its text, or why not. */
  function serve(content: Content, cached: boolean, target: Target, stats: FileStats, request: ReadRequest, spent: number): ReadOutcome {
    const { skill } = request;
    if (content.kind === 'binary') {
      return refuse(
        'binary',
        `it is a binary file (${target.resource.type}, ${formatBytes(stats.size)}), so its bytes are not returned. ` +
          "Use it by its path as the skill's instructions say.",
      );
    }
    const window = lineWindow({ text: content.text, offset: request.offset, limit: request.limit });
    if (!window.ok) return window;
    const bytes = byteLength(window.text);
    const remaining = maxSkillSize - spent;
    if (bytes > remaining) return overBudget(window, bytes, remaining, maxSkillSize);
    request.budget?.set(skill.metadata.name, spent + bytes);
    return { ...window, path: target.path, size: stats.size, bytes, remaining: remaining - bytes, cached };
  }

  return { read };
}

/**
 * The stats of the file at `real`, if it may be read: a regular file within
 * `maxBytes`. Decided before anything is opened (a FIFO or a device could
 * block; a bucket's object is sized by its listing, before any byte is downloaded).
 */
async function checkFile(fs: SkillsFileSystem, real: string, maxBytes: number): Promise<FileStats | Refusal> {
  let stats: FileStats;
  try {
    stats = await fs.stat(real);
  } catch (error) {
    return fileProblem(error, 'read');
  }
  if (!stats.isFile()) return refuse('not-a-file', 'it is not a regular file (a folder, pipe or device), so it cannot be read.');
  if (stats.size > maxBytes) {
    return refuse(
      'too-large',
      `it is ${formatBytes(stats.size)}, over the ${formatBytes(maxBytes)} limit for one file (maxFileSize). ` +
        "Follow the skill's instructions for using it without reading it.",
    );
  }
  return stats;
}

function withDiagnostic(verdict: IntegrityVerdict | undefined): { diagnostic?: Diagnostic } {
  return verdict?.diagnostic ? { diagnostic: verdict.diagnostic } : {};
}

/** The refusal of a path the skill does not list because it was added after signing, if it was. */
function unsignedRefusal(integrity: ReadIntegrity | undefined, skill: Skill, path: string): Refusal | undefined {
  const verdict = integrity?.unsigned(skill, path);
  return verdict && { ...refuse('untrusted', verdict.message), ...withDiagnostic(verdict) };
}

function budgetSpent(skill: Skill, spent: number, maxSkillSize: number): Refusal {
  return refuse(
    'budget',
    `this run has already read ${formatBytes(spent)} from skill "${skill.metadata.name}", ` +
      `the limit per skill (maxSkillSize ${formatBytes(maxSkillSize)}). Work with what you have read.`,
  );
}

function overBudget(window: LineWindow, bytes: number, remaining: number, maxSkillSize: number): Refusal {
  return refuse(
    'budget',
    `lines ${window.startLine}-${window.endLine} are ${formatBytes(bytes)}, but only ${formatBytes(remaining)} of the per-skill read limit ` +
      `(maxSkillSize ${formatBytes(maxSkillSize)}) is left in this run. Ask for fewer lines with \`limit\`.`,
  );
}

interface CacheEntry {
  mtimeMs: number;
  size: number;
  ino: number | undefined;
  at: number;
  content: Content;
}

/**
 * Recent reads by real path, reused while the file's mtime, size and inode
 * are unchanged and the entry is younger than `ttl` ms (`0` never reuses).
 * At most CACHE_MAX_ENTRIES files and CACHE_MAX_BYTES bytes; the oldest go first.
 */
class ReadCache {
  private readonly entries = new Map<string, CacheEntry>();
  private bytes = 0;

  constructor(
    private readonly ttl: number,
    private readonly now: () => number,
  ) {}

  get(key: string, stats: FileStats): Content | undefined {
    const hit = this.entries.get(key);
    if (!hit || this.now() - hit.at >= this.ttl) return undefined;
    return hit.mtimeMs === stats.mtimeMs && hit.size === stats.size && hit.ino === stats.ino ? hit.content : undefined;
  }

  set(key: string, stats: FileStats, content: Content): void {
    this.forget(key);
    if (this.ttl <= 0) return;
    this.entries.set(key, { mtimeMs: stats.mtimeMs, size: stats.size, ino: stats.ino, at: this.now(), content });
    this.bytes += stats.size;
    for (const [oldest, old] of this.entries) {
      if (this.entries.size <= CACHE_MAX_ENTRIES && this.bytes <= CACHE_MAX_BYTES) break;
      this.entries.delete(oldest);
      this.bytes -= old.size;
    }
  }

  private forget(key: string): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.size;
    }
  }
}

/** A listed file that passed every check on its path, with its real path. */
interface Target {
  ok: true;
  /** The clean relative path that was asked for. */
  path: string;
  resource: SkillResource;
  /** Its real path now (links resolved), inside the skill's real folder. */
  real: string;
}

/**
 * The target check: `requested` must be a plain relative path, no secret,
 * one of the skill's listed files, and, resolved through links now (a link
 * may have been swapped in since discovery), a file inside the skill folder
 * whose real name is no secret and shows no hidden characters.
 */
async function checkTarget(fs: SkillsFileSystem, isSecret: SecretMatcher, skill: Skill, requested: string): Promise<Target | Refusal> {
  const checked = checkResourcePath(requested);
  if (!checked.ok) {
    return refuse(
      checked.problem,
      `${checked.detail}. Use a path relative to the skill folder, exactly as listed by ${USE_SKILL_TOOL} (e.g. "references/guide.md").`,
    );
  }
  const path = checked.path;
  if (isSecret(path))
    return refuse(
      'secret',
      'it matches a secret file pattern (.env*, *.pem, *.key, id_rsa*, credentials*, secrets* or a configured one); secrets are never read.',
    );
  // SKILL.md itself is readable too: a use_skill answer cut at maxInstructionChars points here for the rest.
  const resource =
    path === SKILL_FILE ? skillFileResource(skill) : skill.resources.find((r) => r.path.normalize('NFC') === path.normalize('NFC'));
  if (!resource) return notListed(skill, path);

  let realDirectory: string;
  let real: string;
  try {
    realDirectory = await fs.realpath(skill.directory);
  } catch (error) {
    return refuse('unreadable', `the skill folder cannot be read any more (${errorReason(error)}).`);
  }
  try {
    // Plain concatenation (no path.join): an s3:// folder's `//` must survive.
    real = await fs.realpath(childPath(skill.directory, resource.path.split('/').join(sep)));
  } catch (error) {
    return fileProblem(error, 'read');
  }
  if (real === realDirectory || !isSameOrInside(real, realDirectory)) {
    return refuse(
      'outside',
      'it resolves (through a symbolic link) to a location outside the skill folder; only files inside the skill can be read.',
    );
  }
  const realRelative = relative(realDirectory, real).split(sep).join('/');
  if (isSecret(realRelative)) return refuse('secret', 'it links to a file that matches a secret file pattern; secrets are never read.');
  if (hasHiddenCharacters(realRelative))
    return refuse('hidden-characters', 'it links to a file whose name holds invisible or control characters.');
  return { ok: true, path, resource, real };
}

/** Lines `startLine` to `endLine` of a text of `totalLines` lines (0 for an empty text, whose window is empty). */
export interface LineWindow {
  ok: true;
  text: string;
  startLine: number;
  endLine: number;
  totalLines: number;
}

export interface LineRange {
  text: string;
  /** First line, 1-based. Default 1. */
  offset?: number;
  /** Most lines. Default DEFAULT_LINE_LIMIT. */
  limit?: number;
}

/**
 * The lines of `text` from `offset`, at most `limit` of them, joined by `\n`
 * (a `\r\n` line end counts as one), or why the range is wrong. Pure.
 */
export function lineWindow({ text, offset = 1, limit = DEFAULT_LINE_LIMIT }: LineRange): LineWindow | Refusal {
  const lines = text.split(/\r?\n/u);
  // A final newline ends the last line; it does not start another one.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const totalLines = text === '' ? 0 : lines.length;
  if (!Number.isInteger(offset) || offset < 1) return refuse('bad-range', '`offset` is the first line to read, a whole number from 1.');
  if (!Number.isInteger(limit) || limit < 1) return refuse('bad-range', '`limit` is how many lines to read, a whole number from 1.');
  if (offset > Math.max(totalLines, 1)) {
    return refuse('bad-range', `\`offset\` ${offset} is past the end: the file has ${totalLines} line${totalLines === 1 ? '' : 's'}.`);
  }
  const endLine = Math.min(totalLines, offset + limit - 1);
  const chosen = totalLines === 0 ? '' : lines.slice(offset - 1, endLine).join('\n');
  return { ok: true, text: chosen, startLine: totalLines === 0 ? 0 : offset, endLine, totalLines };
}

function skillFileResource(skill: Skill): SkillResource {
  return { name: SKILL_FILE, path: SKILL_FILE, absolutePath: skill.path, type: 'reference', size: 0 };
}

function notListed(skill: Skill, path: string): Refusal {
  if (skill.resources.length === 0) {
    return refuse('not-listed', `skill "${skill.metadata.name}" has no bundled files that can be read.`);
  }
  const suggestions = closestNames(
    skill.resources.map((r) => r.path),
    path,
    { limit: SUGGESTED_PATHS },
  );
  return refuse(
    'not-listed',
    `it is not one of the skill's listed files. Closest listed paths: ${suggestions.join(', ')}. Use a path exactly as ${USE_SKILL_TOOL} listed it.`,
  );
}

/**
 * The file's content through one handle: the first block decides text or
 * binary; the whole file must then decode as UTF-8. `expected` is the size
 * just stat'ed: reading more than that means it changed under us.
 */
async function readContent(fs: SkillsFileSystem, path: string, checked: FileStats, hash: boolean): Promise<Content | Refusal> {
  const expected = checked.size;
  let handle: FileHandle;
  try {
    handle = await fs.open(path, 'r');
  } catch (error) {
    return fileProblem(error, 'opened');
  }
  try {
    // The checks above looked at a path; make sure the file opened is the one they passed.
    if (handle.stat) {
      const opened = await handle.stat();
      if (!opened.isFile() || (checked.ino !== undefined && (opened.ino !== checked.ino || opened.dev !== checked.dev))) {
        return refuse(
          'swapped',
          'it was replaced between the safety checks and the read (a link or another file took its place), so it was not read.',
        );
      }
    }
    // One byte of room beyond the expected size shows a file that grew.
    const buffer = new Uint8Array(expected + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > expected) return refuse('unreadable', 'it changed while it was being read. Try again.');
    const bytes = buffer.subarray(0, filled);
    const digest = hash ? { sha256: sha256Hex(bytes) } : {};
    if (looksBinary(bytes.subarray(0, BINARY_SNIFF_BYTES))) return { kind: 'binary', ...digest };
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
    } catch {
      return { kind: 'binary', ...digest };
    }
    return { kind: 'text', text, ...digest };
  } catch (error) {
    return refuse('unreadable', `it cannot be read (${errorReason(error)}).`);
  } finally {
    await handle.close().catch(() => undefined);
  }
}
