/**
 * Indexes what each skill's instructions say, off the request path: after
 * an index's first request, the SKILL.md bodies are read a few at a time,
 * each turned into its bounded terms as it arrives (src/catalog/body-terms.ts), and
 * when every body is in, the ranker starts reading them (one swap). Until
 * then ranking reads names, tags and descriptions only, as before.
 *
 * Requests keep being answered throughout: the reading works about a
 * millisecond at a time (SLICE_MS: as many bodies as fit, at least one,
 * each a fraction of a millisecond), then leaves the event loop free; the
 * build's steps are as short. The next few files are read while the last
 * are tokenised. The work waits on unref'd timers, so a process that has
 * nothing else to do exits instead of waiting for it.
 */
import { MAX_CONCURRENT_FS_CALLS } from '../base/concurrency.js';
import { errorReason, type SkillsFileSystem } from '../base/fs.js';
import { splitFrontmatter } from '../frontmatter/split.js';
import { bodyIndexSubset } from './body-terms.js';
import type { BodyAwareRanker } from './rank/score.js';
import type { SkillEntry } from '../base/model.js';

/** Bodies read at a time: few, so requests meanwhile wait for at most a handful of file callbacks. */
const BATCH = Math.min(4, MAX_CONCURRENT_FS_CALLS);

export interface BodyIndexing {
  /** Resolves when the ranker reads every body it could read (or the indexing was stopped). Never rejects. */
  readonly done: Promise<void>;
  /**
   * Starts now if it was waiting for its delay, and from then on keeps the
   * process alive until it is done (for a caller that awaits `done`).
   */
  start(): void;
  /** Stops reading (the index was replaced): the ranker stays as it is. */
  stop(): void;
  /** What was read, once the ranker reads the bodies; undefined before (or when stopped). */
  readonly outcome: BodyIndexingOutcome | undefined;
}

export interface BodyIndexingOutcome {
  /** Where the instructions' terms came from: the SKILL.md files, or a prebuilt index built with them. */
  from: 'files' | 'index';
  /** Skills whose instructions are ranked. */
  read: number;
  /** Skills whose SKILL.md could not be read (they are ranked by their metadata only): how many, and the first few. */
  skipped: number;
  examples: Array<{ skill: string; path: string; reason: string }>;
}

/** Skipped skills named in the outcome; the rest are counted. */
const SKIPPED_EXAMPLES = 5;

export interface BodyIndexingInput {
  skills: readonly SkillEntry[];
  ranker: () => BodyAwareRanker;
  fs: SkillsFileSystem;
  /** Milliseconds to wait before the first read. */
  delayMs: number;
}

/** Indexes the bodies of `skills` (in ranker order) for `ranker`, starting after `delayMs`. */
export function indexBodies(input: BodyIndexingInput): BodyIndexing {
  const state = { stopped: false, started: false, keepAlive: false };
  let outcome: BodyIndexingOutcome | undefined;
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const timer = setTimeout(() => begin(), input.delayMs);
  timer.unref?.();

  function begin(): void {
    if (state.started || state.stopped) return;
    state.started = true;
    clearTimeout(timer);
    void readAndIndex(input, state)
      .then((result) => {
        outcome = result;
      })
      .finally(finish);
  }

  return {
    done,
    start() {
      state.keepAlive = true;
      begin();
    },
    stop() {
      state.stopped = true;
      clearTimeout(timer);
      finish();
    },
    get outcome() {
      return outcome;
    },
  };
}

/** Whether an indexing was stopped, and whether a caller awaits it (its pauses then keep the process alive). */
interface IndexingState {
  stopped: boolean;
  keepAlive: boolean;
}

/**
 * Tokenising per turn, in milliseconds: then a pause. Four bodies a turn (up
 * to 2.4 ms at load 15) were what the p99 of requests while reading waited for.
 */
const SLICE_MS = 1;

/**
 * Lets waiting requests run, and lets the process exit if nothing else keeps
 * it (unless a caller awaits `done`). A timer (at least 1 ms), not an
 * immediate: requests then get as many turns as the reading, not one
 * between any two of its slices.
 */
function pause(state: IndexingState): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 0);
    if (!state.keepAlive) timer.unref?.();
  });
}

/** Reads every body into the ranker's collector, then builds the index in steps and hands it over; undefined when stopped. */
async function readAndIndex(input: BodyIndexingInput, state: IndexingState): Promise<BodyIndexingOutcome | undefined> {
  const ranker = input.ranker();
  const collector = ranker.bodyCollector();
  const { skills } = input;
  const result: BodyIndexingOutcome = { from: 'files', read: 0, skipped: 0, examples: [] };
  const read = (from: number): Promise<Array<string | undefined>> => readBatch(skills.slice(from, from + BATCH), input.fs, result);
  let next = skills.length > 0 ? read(0) : undefined;
  let slice = performance.now();
  for (let from = 0; next !== undefined; from += BATCH) {
    const bodies = await next;
    if (state.stopped) return undefined;
    // The next files are read while these are tokenised.
    next = from + BATCH < skills.length ? read(from + BATCH) : undefined;
    // Added in skill order whatever order the reads finished in: the same library always gives the same index.
    for (const [i, body] of bodies.entries()) {
      if (body === undefined) continue;
      collector.add(from + i, body);
      result.read++;
      if (performance.now() - slice < SLICE_MS) continue;
      await pause(state);
      if (state.stopped) return undefined;
      slice = performance.now();
    }
  }
  const steps = collector.buildSteps();
  for (;;) {
    if (state.stopped) return undefined;
    const step = steps.next();
    if (step.done) {
      ranker.useBodies(step.value);
      return result;
    }
    await pause(state);
  }
}

/** The bodies of `batch`, read together; one that cannot be read is undefined, counted in `result` (the first few named). */
function readBatch(batch: readonly SkillEntry[], fs: SkillsFileSystem, result: BodyIndexingOutcome): Promise<Array<string | undefined>> {
  return Promise.all(
    batch.map((entry) =>
      bodyOf(entry, fs).catch((error: unknown) => {
        result.skipped++;
        if (result.examples.length < SKIPPED_EXAMPLES)
          result.examples.push({ skill: entry.metadata.name, path: entry.path, reason: errorReason(error) });
        return undefined;
      }),
    ),
  );
}

/** Indexing that is already done: the ranker had the instructions' terms from a prebuilt index (`read` skills). */
export function indexedAlready(read: number): BodyIndexing {
  const outcome: BodyIndexingOutcome = { from: 'index', read, skipped: 0, examples: [] };
  return { done: Promise.resolve(), start: () => undefined, stop: () => undefined, outcome };
}

/** The instructions of `entry`: already in memory for a fully loaded skill, else read from its SKILL.md. */
async function bodyOf(entry: SkillEntry, fs: SkillsFileSystem): Promise<string> {
  const instructions: unknown = (entry as { instructions?: unknown }).instructions;
  // '' may only mean "not loaded" (a prebuilt index's entries): read the file then.
  if (typeof instructions === 'string' && instructions !== '') return instructions;
  return splitFrontmatter(await fs.readFile(entry.path, 'utf8')).body;
}

/** What a visible part's ranker needs from the whole index's reading. */
export interface PartBodiesInput {
  /** The whole index's reading, and its ranker (holding the instructions once read). */
  whole: BodyIndexing;
  wholeRanker: () => BodyAwareRanker;
  /** The whole index's skills' names in its ranker's order. */
  wholeNames: readonly string[];
  /** The part's ranker, and its skills' names in ranker order. */
  ranker: () => BodyAwareRanker;
  names: readonly string[];
}

/**
 * The instructions of a visible part of an index, taken from the whole
 * index's reading once it is done: nothing is read again, whatever the
 * number of visible sets. The outcome is the whole's (logged once, per index).
 */
export function bodiesOfPart(input: PartBodiesInput): BodyIndexing {
  let stopped = false;
  const done = input.whole.done.then(() => {
    const whole = input.wholeRanker();
    const bodies = whole.bodies;
    if (stopped || !bodies) return;
    const docOf = new Int32Array(bodies.size).fill(-1);
    const position = new Map(input.names.map((name, i) => [name, i]));
    input.wholeNames.forEach((name, doc) => {
      const at = position.get(name);
      if (at !== undefined) docOf[doc] = at;
    });
    input.ranker().useBodies(bodyIndexSubset(bodies, docOf, input.names.length));
  });
  return {
    done,
    start: () => input.whole.start(),
    stop() {
      stopped = true;
    },
    get outcome() {
      return input.whole.outcome;
    },
  };
}
