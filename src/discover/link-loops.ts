/**
 * Links the system would not follow (ELOOP): a cycle, or a chain longer than
 * it follows. Once the walk is over each is traced by hand (readlink) and
 * explained; links leading into the same cycle, or down the same over-long
 * chain, are one warning (a chain of 200 links is one problem, not 160).
 */
import { dirname, resolve } from 'node:path';
import { createDiagnostic, type Diagnostic } from '../base/diagnostics.js';
import type { SkillsFileSystem } from '../base/fs.js';
import { compareNames } from '../base/text.js';

/** Links followed by hand to explain an ELOOP; past this a chain is just "too long". */
const MAX_TRACED_LINKS = 1000;
/** Link names quoted in one grouped warning. */
const QUOTED_LINKS = 3;

/** An ELOOP link, explained (and grouped with others like it) once the walk is over. */
export interface LinkLoop {
  eloop: string;
}

type Trace = { kind: 'cycle'; members: string[] } | { kind: 'chain'; end: string } | { kind: 'unknown' };

/** A link to a folder that contains it (or leads back into itself), skipped. */
export function symlinkLoop(path: string, reason: string): Diagnostic {
  return createDiagnostic(
    'SYMLINK_LOOP',
    path,
    `symbolic link skipped: ${reason}. Point the link at a folder outside the one it sits in, or remove it.`,
  );
}

/**
 * Replace each ELOOP note with a warning that says what it is, grouped as
 * above. Sequential, in the notes' order, so the grouping never depends on
 * timing; each link is read once.
 */
export async function explainLinkLoops(fs: SkillsFileSystem, notes: ReadonlyArray<Diagnostic | LinkLoop>): Promise<Diagnostic[]> {
  const traced = new Map<string, Trace>();
  const groups = new Map<string, { first: number; paths: string[]; trace: Trace }>();
  const out: Array<Diagnostic | undefined> = [];
  for (const note of notes) {
    if (!('eloop' in note)) {
      out.push(note);
      continue;
    }
    const trace = await traceLinks(fs, note.eloop, traced);
    const key =
      trace.kind === 'cycle' ? `cycle\0${trace.members[0]}` : trace.kind === 'chain' ? `chain\0${trace.end}` : `path\0${note.eloop}`;
    const group = groups.get(key);
    if (group) group.paths.push(note.eloop);
    else groups.set(key, { first: out.length, paths: [note.eloop], trace });
    out.push(undefined);
  }
  for (const { first, paths, trace } of groups.values()) out[first] = loopWarning(paths, trace);
  return out.filter((d): d is Diagnostic => d !== undefined);
}

/** Follow the link at `start` by hand (readlink), remembering every link passed in `traced`. */
async function traceLinks(fs: SkillsFileSystem, start: string, traced: Map<string, Trace>): Promise<Trace> {
  const readlink = fs.readlink?.bind(fs);
  if (!readlink) return { kind: 'unknown' };
  const passed: string[] = [];
  const index = new Map<string, number>();
  let trace: Trace = { kind: 'unknown' };
  for (let path = start; passed.length <= MAX_TRACED_LINKS;) {
    const known = traced.get(path);
    if (known) {
      trace = known;
      break;
    }
    const at = index.get(path);
    if (at !== undefined) {
      trace = cycleFrom(passed.slice(at), path);
      break;
    }
    let target: string;
    try {
      target = await readlink(path);
    } catch {
      // Not a link (or gone): the chain ends here. The start itself must be one, or nothing is known.
      if (passed.length > 0) trace = { kind: 'chain', end: path };
      break;
    }
    index.set(path, passed.length);
    passed.push(path);
    path = resolve(dirname(path), target);
  }
  for (const path of passed) traced.set(path, trace);
  return trace;
}

/** A cycle named from its smallest member, so every way into it gives the same key. */
function cycleFrom(cycle: readonly string[], fallback: string): Trace {
  const smallest = cycle.indexOf([...cycle].sort(compareNames)[0] ?? fallback);
  return { kind: 'cycle', members: [...cycle.slice(smallest), ...cycle.slice(0, smallest)] };
}

function loopWarning(paths: readonly string[], trace: Trace): Diagnostic {
  const [first = ''] = paths;
  const more = paths.length - 1;
  const subject =
    more === 0
      ? 'symbolic link skipped'
      : `${paths.length} symbolic links skipped (${paths.slice(0, QUOTED_LINKS).join(', ')}${paths.length > QUOTED_LINKS ? ', ...' : ''})`;
  const they = more === 0 ? 'it leads' : 'they lead';
  if (trace.kind === 'chain') {
    return createDiagnostic(
      'SYMLINK_CHAIN_TOO_LONG',
      first,
      `${subject}: ${they} to ${trace.end} through more symbolic links in a row than the system ` +
        `follows (40 on Linux). Point ${more === 0 ? 'it' : 'them'} straight at ${trace.end}.`,
    );
  }
  const what =
    trace.kind === 'cycle'
      ? `${they} into a cycle of symbolic links (${[...trace.members, trace.members[0]].join(' -> ')}). Remove or repoint one link of the cycle.`
      : 'too many levels of symbolic links (a cycle of symbolic links, or a chain longer ' +
        'than the system follows). Point the link straight at a folder, or remove it.';
  return createDiagnostic('SYMLINK_LOOP', first, `${subject}: ${what}`);
}
