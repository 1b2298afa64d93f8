/**
 * What the watcher reports about its own trouble: the WatchProblem class, how
 * an error code is classed, and each problem's message (which says what still
 * works and how to fix it). Messages carry no "[skills] " prefix: the logger
 * that shows them adds it.
 */
import { SkillsWatchError } from '../config/errors.js';
import { errorCode, errorReason } from '../base/fs.js';
import type { WatchProblemKind } from './types.js';

/** What the watcher hands onError about its own trouble. Reported once until it clears; never thrown. */
export class WatchProblem extends SkillsWatchError {
  readonly kind: WatchProblemKind;
  /** The folder the problem is about: the configured directory or a folder inside it. */
  readonly folder: string;

  constructor(kind: WatchProblemKind, directory: string, folder: string, message: string, options?: { cause?: unknown }) {
    super(directory, message, options);
    this.name = 'WatchProblem';
    this.kind = kind;
    this.folder = folder;
  }
}

/** Why a folder that exists is not watched. */
export type FolderTrouble = 'unreadable' | 'limit' | 'failed';

export function troubleOf(code: string | undefined): FolderTrouble {
  if (code === 'EACCES' || code === 'EPERM') return 'unreadable';
  if (code === 'ENOSPC' || code === 'EMFILE' || code === 'ENFILE') return 'limit';
  return 'failed';
}

/** Gone: the folder (or the link to it) no longer exists, which is a change, not trouble. */
export function isGone(code: string | undefined): boolean {
  return code === 'ENOENT' || code === 'ENOTDIR';
}

const RESCANS = 'changes there are seen only when the index is rescanned (every `cacheTtl`)';

/** A folder inside a configured directory (or the directory itself, once walked) cannot be watched or read. */
export function folderProblem(
  where: { directory: string; folder: string },
  kind: FolderTrouble,
  error: unknown,
  retryMs: number,
): WatchProblem {
  const retry = `retrying every ${retryMs} ms`;
  const { folder } = where;
  const message =
    kind === 'unreadable'
      ? `cannot watch ${folder}: ${errorReason(error)}. Its skills cannot be loaded until ` +
        `this process may read it; ${retry}, and the other folders are still watched.`
      : kind === 'limit'
        ? `cannot watch ${folder} and folders not yet watched: the system's limit on watches is reached (${errorCode(error) ?? 'limit'}). ` +
          `Until it is raised (Linux: sysctl fs.inotify.max_user_watches) or fewer folders are configured, ${RESCANS}; ${retry}.`
        : `cannot watch ${folder}: ${errorReason(error)}. Until it can, ${RESCANS}; ${retry}, and the other folders are still watched.`;
  return new WatchProblem(kind, where.directory, folder, message, { cause: error });
}

/** A configured directory cannot be started on (missing, not a folder, unreadable). */
export function directoryProblem(directory: string, kind: WatchProblemKind, error: unknown, retryMs: number): WatchProblem {
  const message = `cannot watch ${directory}: ${errorReason(error)}. Retrying every ${retryMs} ms; the other directories are still watched.`;
  return new WatchProblem(kind, directory, directory, message, { cause: error });
}

/** Nothing at all is watched. */
export function pollingProblem(directory: string, retryMs: number): WatchProblem {
  const message =
    `no skills folder can be watched, so changes are seen only when the index is ` +
    `rescanned (every \`cacheTtl\`); watching is retried every ${retryMs} ms.`;
  return new WatchProblem('polling', directory, directory, message);
}
