/**
 * Pass 2 of a scan: what pass 1 listed, in tree order (configured directories
 * in the order given, entries sorted by name), each real folder kept at the
 * first path that reaches it, so the output never depends on which read
 * finished first. Problems are noted in the same order.
 */
import { createDiagnostic, type Diagnostic } from '../base/diagnostics.js';
import { errorCode, errorReason } from '../base/fs.js';
import { childPath } from '../base/paths.js';
import { SKILL_FILE } from '../base/skill-file.js';
import { symlinkLoop, type LinkLoop } from './link-loops.js';
import type { Child, FolderListing, SkillLocation } from './walk.js';

/** A configured directory, with its real path or why it has none. */
export type Start = { root: string; realRoot: string } | { root: string; error: unknown };

/** A problem, or an ELOOP link to explain once the walk is over. */
export type Note = Diagnostic | LinkLoop;

interface Step {
  path: string;
  realPath: string;
  /** Whether a folder on the path to this one is a skill: a `skill.md` there is a resource, not a typo. */
  insideSkill: boolean;
}

export function inTreeOrder(
  folders: ReadonlyMap<string, { state: FolderListing }>,
  starts: readonly Start[],
): { skills: SkillLocation[]; notes: Note[] } {
  const skills: SkillLocation[] = [];
  const notes: Note[] = [];
  const seen = new Set<string>();
  for (const start of starts) {
    if ('error' in start) {
      notes.push(directoryProblem(start.root, start.error, true));
      continue;
    }
    // Depth-first with an explicit stack: the tree may be deeper than the call stack allows.
    const stack: Array<Step | Note> = [{ path: start.root, realPath: start.realRoot, insideSkill: false }];
    for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
      if (!('realPath' in item)) {
        notes.push(item);
        continue;
      }
      if (seen.has(item.realPath)) continue;
      seen.add(item.realPath);
      const state = folders.get(item.realPath)?.state;
      if (!state || state.kind === 'pending') continue;
      if (state.kind === 'failed') {
        notes.push(directoryProblem(item.path, state.error, item.path === start.root));
        continue;
      }
      if (state.skillFile) {
        skills.push({
          root: start.root,
          directory: item.path,
          realDirectory: item.realPath,
          file: childPath(item.path, SKILL_FILE),
          fileType: state.skillFile,
        });
      } else if (state.misnamed && !item.insideSkill) {
        notes.push(misnamed(childPath(item.path, state.misnamed)));
      }
      const insideSkill = item.insideSkill || state.skillFile !== undefined;
      // Pushed last to first, so they come off the stack in name order.
      for (let i = state.children.length - 1; i >= 0; i--) {
        const child = state.children[i];
        if (child) stack.push(childStep(child, childPath(item.path, child.name), insideSkill));
      }
    }
  }
  return { skills, notes };
}

function childStep(child: Child, path: string, insideSkill: boolean): Step | Note {
  switch (child.kind) {
    case 'folder':
      return { path, realPath: child.realPath, insideSkill };
    case 'loop':
      return symlinkLoop(path, `it points back to ${child.target}, which contains it`);
    case 'broken':
      return createDiagnostic('SYMLINK_BROKEN', path, 'symbolic link skipped: its target does not exist. Fix the link or remove it.');
    case 'eloop':
      return { eloop: path };
    case 'failed':
      return directoryProblem(path, child.error, false);
  }
}

function misnamed(path: string): Diagnostic {
  return createDiagnostic(
    'SKILL_FILE_CASE',
    path,
    `not loaded as a skill: the file must be named ${SKILL_FILE}, in exactly those capitals. Rename it to ${SKILL_FILE}.`,
  );
}

/** A folder that could not be listed: a configured directory missing, a folder gone mid-scan, or unreadable. */
function directoryProblem(path: string, error: unknown, configured: boolean): Diagnostic {
  if (errorCode(error) !== 'ENOENT') {
    return createDiagnostic(
      'DIRECTORY_UNREADABLE',
      path,
      `cannot read directory: ${errorReason(error)}. Check that it is a folder this process may read.`,
    );
  }
  if (configured)
    return createDiagnostic('DIRECTORY_NOT_FOUND', path, 'skills directory does not exist. Create it, or remove it from `directories`.');
  return createDiagnostic(
    'DIRECTORY_VANISHED',
    path,
    'folder disappeared while it was being scanned (deleted or moved), so skills inside it were not loaded. They load on the next scan if it is back.',
  );
}
