/**
 * The checks of single options, each turning a value as given into its
 * resolved form or failing with the SkillsConfigError that says how to fix
 * it (errors.ts: `failOption`, one wording for what was given).
 */
import { nodeFileSystem, type SkillsFileSystem } from '../base/fs.js';
import { editDistance } from '../base/text.js';
import { DEFAULTS } from './defaults.js';
import { describeValue, failOption } from './errors.js';
import {
  KNOWN_OPTIONS,
  OPTION_KEYS,
  type AutoActivateOptions,
  type KeepInViewOptions,
  type ResolvedLocalCopies,
  type ResolvedOptions,
} from './options.js';
import { packageNameProblem } from './packages.js';

export function checkStringList(name: string, value: unknown): string[] {
  if (!Array.isArray(value))
    failOption(name, `must be an array of strings, got ${describeValue(value)}.`, `Example: ${name}: ['code-review'].`);
  value.forEach((item: unknown, i) => {
    if (typeof item !== 'string' || item.trim() === '')
      failOption(`${name}[${i}]`, `must be a non-empty string, got ${describeValue(item)}.`);
  });
  return [...(value as string[])];
}

export function checkPackages(value: unknown): string[] {
  const names = checkStringList('packages', value);
  names.forEach((name, i) => {
    const problem = packageNameProblem(name);
    if (problem)
      failOption(
        `packages[${i}]`,
        `(${JSON.stringify(name)}) is not a package name: ${problem}.`,
        "Example: packages: ['@sisu-ai/skill-debug'].",
      );
  });
  return [...new Set(names)];
}

export function checkSize(name: string, value: unknown, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  const ok =
    typeof value === 'number' &&
    !Number.isNaN(value) &&
    (value === Infinity || Number.isInteger(value)) &&
    (allowZero ? value >= 0 : value > 0);
  if (!ok) {
    const range = allowZero ? 'a whole number of 0 or more' : 'a whole number greater than 0';
    failOption(name, `must be ${range} (or Infinity), got ${describeValue(value)}.`, `Default: ${fallback}.`);
  }
  return value;
}

export function checkFlag(
  name: 'strict' | 'preload' | 'resourceTool' | 'findSkills' | 'rankInstructions',
  value: unknown,
): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') failOption(name, `must be true or false, got ${describeValue(value)}.`);
  return value;
}

function closest(name: string): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const known of KNOWN_OPTIONS) {
    const d = editDistance(name.toLowerCase(), known.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = known;
    }
  }
  return bestDistance <= 3 ? best : undefined;
}

export function checkKeys(options: object): void {
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(OPTION_KEYS, key)) {
      const suggestion = closest(key);
      failOption(
        undefined,
        `unknown option \`${key}\`.${suggestion ? ` Did you mean \`${suggestion}\`?` : ''}`,
        `Known options: ${KNOWN_OPTIONS.join(', ')}.`,
      );
    }
  }
}

export function checkFs(value: unknown): SkillsFileSystem {
  const fs = value ?? nodeFileSystem;
  for (const method of ['readdir', 'readFile', 'stat', 'lstat', 'realpath', 'open'] as const) {
    if (typeof (fs as Record<string, unknown>)[method] !== 'function') {
      failOption('fs', `must implement ${method}():`, 'pass an object shaped like node:fs/promises (or leave `fs` out).');
    }
  }
  return fs as SkillsFileSystem;
}

/** A callback option: absent, or a function (sync or async). */
export function checkFunction(name: string, value: unknown, shape: string): void {
  if (value !== undefined && typeof value !== 'function')
    failOption(name, `must be a function ${shape}, got ${describeValue(value)}.`, 'Or leave it out.');
}

/** `always`: a list of skill names (checked for shape only; names are matched per request). */
export function checkAlways(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((name) => typeof name !== 'string' || name.trim() === '')) {
    failOption('always', 'must be a list of skill names,', "e.g. always: ['code-review'].");
  }
  return [...new Set((value as string[]).map((name) => name.trim()))];
}

/** `autoActivate` as given (undefined, false, true or an object) to its resolved form, or undefined when it is off. */
export function checkAutoActivate(value: unknown): Required<AutoActivateOptions> | undefined {
  const defaults = DEFAULTS.autoActivate;
  if (value === undefined || value === false) return undefined;
  if (value === true) return { ...defaults };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    failOption(
      'autoActivate',
      'must be true, false or { threshold, maxSkills },',
      `e.g. autoActivate: { threshold: ${defaults.threshold}, maxSkills: ${defaults.maxSkills} }.`,
    );
  }
  const { threshold = defaults.threshold, maxSkills = defaults.maxSkills, ...rest } = value as Record<string, unknown>;
  const unknownKey = Object.keys(rest)[0];
  if (unknownKey !== undefined) failOption(`autoActivate.${unknownKey}`, 'is not an option: the known keys are threshold and maxSkills.');
  if (typeof threshold !== 'number' || !(threshold >= 0 && threshold <= 1)) {
    failOption(
      'autoActivate.threshold',
      `must be a number from 0 to 1 (scores are normalised), got ${String(threshold)}.`,
      `Default: ${defaults.threshold}.`,
    );
  }
  if (typeof maxSkills !== 'number' || !Number.isInteger(maxSkills) || maxSkills < 1) {
    failOption(
      'autoActivate.maxSkills',
      `must be a whole number of 1 or more, got ${String(maxSkills)}.`,
      `Default: ${defaults.maxSkills}.`,
    );
  }
  return { threshold, maxSkills };
}

/** `keepInView` as given (undefined, true, false or an object) to its resolved form, or undefined when it is off. */
export function checkKeepInView(value: unknown): Required<KeepInViewOptions> | undefined {
  const defaults = DEFAULTS.keepInView;
  if (value === false) return undefined;
  if (value === undefined || value === true) return { ...defaults };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    failOption(
      'keepInView',
      'must be true, false or { maxChars, maxSkillChars },',
      `e.g. keepInView: { maxChars: ${defaults.maxChars}, maxSkillChars: ${defaults.maxSkillChars} }.`,
    );
  }
  const { maxChars, maxSkillChars, ...rest } = value as Record<string, unknown>;
  const unknownKey = Object.keys(rest)[0];
  if (unknownKey !== undefined) failOption(`keepInView.${unknownKey}`, 'is not an option: the known keys are maxChars and maxSkillChars.');
  return {
    maxChars: checkSize('keepInView.maxChars', maxChars, defaults.maxChars),
    maxSkillChars: checkSize('keepInView.maxSkillChars', maxSkillChars, defaults.maxSkillChars),
  };
}

export function checkWatch(value: unknown, fs: SkillsFileSystem): ResolvedOptions['watch'] {
  if (value === undefined || value === false) return undefined;
  let debounceMs: number = DEFAULTS.watch.debounceMs;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const { debounceMs: given, ...rest } = value as Record<string, unknown>;
    const unknownKey = Object.keys(rest)[0];
    if (unknownKey !== undefined)
      failOption(`watch.${unknownKey}`, 'is not an option: the only key is debounceMs,', 'e.g. watch: { debounceMs: 200 }.');
    debounceMs = checkSize('watch.debounceMs', given, debounceMs, true);
    // A timer of Infinity fires at once: a debounce must be finite.
    if (debounceMs === Infinity)
      failOption('watch.debounceMs', 'must be a finite number of milliseconds, got Infinity.', `Default: ${DEFAULTS.watch.debounceMs}.`);
  } else if (value !== true) {
    failOption('watch', `must be true, false or { debounceMs }, got ${describeValue(value)}.`);
  }
  const canWatch = typeof fs.watch === 'function' || typeof fs.watchFolder === 'function';
  if (!canWatch)
    failOption(
      'watch',
      'needs an `fs` with a watch() or watchFolder() method (node:fs/promises has watch):',
      'leave `fs` out, or add one.',
    );
  return { debounceMs };
}

const EXAMPLE = "e.g. localCopies: { root: '/var/cache/skills', maxBytes: 64 * 1024 * 1024 }";

/** `localCopies`: off (undefined), or where the copies go (`resolve` turns a path into one against `cwd`) and how much they may take. */
export function checkLocalCopies(value: unknown, resolve: (path: string) => string): ResolvedLocalCopies | undefined {
  const maxBytes = DEFAULTS.localCopies.maxBytes;
  if (value === false) return undefined;
  if (value === undefined || value === true) return { root: undefined, maxBytes };
  if (typeof value === 'string') return { root: checkRoot('localCopies', value, resolve), maxBytes };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    failOption('localCopies', `must be true, false, a folder, or { root, maxBytes }, got ${describeValue(value)};`, `${EXAMPLE}.`);
  }
  const { root, maxBytes: given, ...rest } = value as Record<string, unknown>;
  const unknownKey = Object.keys(rest)[0];
  if (unknownKey !== undefined) failOption(`localCopies.${unknownKey}`, 'is not an option: the known keys are root and maxBytes.');
  return {
    root: root === undefined ? undefined : checkRoot('localCopies.root', root, resolve),
    maxBytes: checkSize('localCopies.maxBytes', given, maxBytes),
  };
}

function checkRoot(option: string, value: unknown, resolve: (path: string) => string): string {
  if (typeof value !== 'string' || value.trim() === '' || value.includes('://')) {
    failOption(option, `must be a folder on this machine, got ${describeValue(value)};`, `${EXAMPLE}.`);
  }
  return resolve(value);
}
