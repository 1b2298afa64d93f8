/**
 * `resolveOptions`: every option checked once, in one order (the first
 * mistake is the one thrown), into plain frozen data: places, limits, the
 * s3:// settings. Nothing is built here (source/storage.ts builds storage).
 */
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { isObjectUrl } from '../base/object-url.js';
import {
  checkAlways,
  checkAutoActivate,
  checkFlag,
  checkFs,
  checkFunction,
  checkKeepInView,
  checkKeys,
  checkLocalCopies,
  checkPackages,
  checkSize,
  checkStringList,
  checkWatch,
} from './checks.js';
import { DEFAULTS } from './defaults.js';
import { checkEmbeddings } from './embeddings.js';
import { describeValue, failOption } from './errors.js';
import type { ConfigOptions, ResolvedOptions } from './options.js';
import { checkS3Index, checkS3Place, checkStorage } from './storage-options.js';
import { checkTrust } from './trust-options.js';

const USAGE = "skillsMiddleware({ directories: ['./skills'] })";

/** Expand `~` and resolve against `cwd`. */
export function resolveDirectory(directory: string, cwd: string): string {
  let expanded = directory;
  if (directory === '~') expanded = homedir();
  else if (directory.startsWith('~/') || directory.startsWith('~\\')) expanded = homedir() + directory.slice(1);
  return isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
}

/** The folders to scan, as given (one of `directory` / `directories`), or [] when packages alone are configured. */
function checkPlaces(options: ConfigOptions, packages: readonly string[]): string[] {
  const { directories, directory } = options;
  if (directories !== undefined && directory !== undefined) {
    failOption(undefined, 'pass either `directory` or `directories`, not both.', 'Put every folder in `directories`, in precedence order.');
  }
  if (directory !== undefined) {
    if (typeof directory !== 'string' || directory.trim() === '')
      failOption('directory', `must be a non-empty string, got ${describeValue(directory)}.`, `Example: ${USAGE}.`);
    return [directory];
  }
  if (directories !== undefined) {
    const listed = checkStringList('directories', directories);
    if (listed.length === 0 && packages.length === 0)
      failOption('directories', 'is empty: list at least one folder that holds skills,', `e.g. ${USAGE}.`);
    return listed;
  }
  if (packages.length > 0) return [];
  return failOption(
    undefined,
    'no skills configured: pass the folders that hold your skills (`directories`) or the npm packages that ship them (`packages`),',
    `e.g. ${USAGE} or skillsMiddleware({ packages: ['@sisu-ai/skill-debug'] }). Skills are only loaded from places you name.`,
  );
}

/** Check options once and fill in defaults, as plain frozen data. Throws SkillsConfigError on any mistake. */
export function resolveOptions(options: ConfigOptions | undefined): ResolvedOptions {
  if (options === undefined || options === null || typeof options !== 'object' || Array.isArray(options)) {
    failOption(undefined, 'options are required: pass the folders that hold your skills,', `e.g. ${USAGE}.`);
  }
  checkKeys(options);
  const where = checkWhere(options);
  const resolved: ResolvedOptions = {
    directories: where.directories,
    packages: where.packages,
    cwd: where.cwd,
    include: options.include === undefined ? [] : checkStringList('include', options.include),
    exclude: options.exclude === undefined ? [] : checkStringList('exclude', options.exclude),
    maxFileSize: checkSize('maxFileSize', options.maxFileSize, DEFAULTS.maxFileSize),
    maxSkillSize: checkSize('maxSkillSize', options.maxSkillSize, DEFAULTS.maxSkillSize),
    maxListedResources: checkSize('maxListedResources', options.maxListedResources, DEFAULTS.maxListedResources, true),
    maxInstructionChars: checkSize('maxInstructionChars', options.maxInstructionChars, DEFAULTS.maxInstructionChars),
    resourceTool: checkFlag('resourceTool', options.resourceTool) ?? DEFAULTS.resourceTool,
    secretPatterns: options.secretPatterns === undefined ? [] : checkStringList('secretPatterns', options.secretPatterns),
    cacheTtl: checkSize('cacheTtl', options.cacheTtl, DEFAULTS.cacheTtl, true),
    strict: checkFlag('strict', options.strict) ?? DEFAULTS.strict,
    preload: checkFlag('preload', options.preload) ?? DEFAULTS.preload,
    index: where.index,
    catalogBudget: checkSize('catalogBudget', options.catalogBudget, DEFAULTS.catalogBudget, true),
    findSkills: checkFlag('findSkills', options.findSkills),
    rankInstructions: checkFlag('rankInstructions', options.rankInstructions) ?? DEFAULTS.rankInstructions,
    embeddings: checkEmbeddings(options.embeddings),
    always: checkAlways(options.always),
    autoActivate: checkAutoActivate(options.autoActivate),
    keepInView: checkKeepInView(options.keepInView),
    watch: checkWatch(options.watch, where.fs),
    localCopies: checkLocalCopies(options.localCopies, (path) => resolveDirectory(path, where.cwd)),
    signal: options.signal,
    fs: where.fs,
    refresh: where.storage.refresh,
    storageWait: where.storage.storageWait,
    buckets: where.storage.buckets,
    trust: checkTrust(options.trust),
  };
  // Checked last, as they always were (the first mistake is the one thrown); the run takes them as given.
  checkFunction('visible', options.visible, '(skill, ctx) => boolean');
  checkFunction('approve', options.approve, '({ skill, route, arguments }, ctx) => boolean | { approved, reason }');
  checkFunction('onEvent', options.onEvent, '(event, ctx) => void');
  return frozen(resolved);
}

/** Where skills come from: the folders, packages, `cwd`, `fs`, `signal`, the prebuilt index and the s3:// settings. */
function checkWhere(options: ConfigOptions) {
  const packages = options.packages === undefined ? [] : checkPackages(options.packages);
  const listed = checkPlaces(options, packages);
  const cwd = options.cwd ?? process.cwd();
  if (typeof cwd !== 'string' || cwd.trim() === '') failOption('cwd', `must be a non-empty string, got ${describeValue(cwd)}.`);
  const fs = checkFs(options.fs);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    failOption('signal', `must be an AbortSignal, got ${describeValue(options.signal)}.`);
  const resolvedCwd = resolveDirectory(cwd, process.cwd());
  // Each s3:// entry checked once, named by where it was given.
  const buckets = listed.map((d, i) => (isObjectUrl(d.trim()) ? checkS3Place(`directories[${i}]`, d) : undefined));
  const index = checkIndex(options, resolvedCwd);
  const places = buckets.filter((place) => place !== undefined);
  const storage = checkStorage(options, places, index !== undefined && isObjectUrl(index) ? index : undefined);
  // The same folder listed twice is scanned once; an s3:// place is kept as its root URL.
  const directories = [...new Set(listed.map((d, i) => buckets[i]?.root ?? resolveDirectory(d, resolvedCwd)))];
  return { directories, packages, cwd: resolvedCwd, fs, index, storage };
}

/** `options` and the plain data in it frozen; what the caller passed in (`fs`, `signal`, providers, an S3 client) is left as it is. */
function frozen(options: ResolvedOptions): ResolvedOptions {
  for (const list of [options.directories, options.packages, options.include, options.exclude, options.secretPatterns, options.always]) {
    Object.freeze(list);
  }
  for (const part of [options.autoActivate, options.keepInView, options.watch, options.embeddings, options.localCopies])
    if (part) Object.freeze(part);
  if (options.trust) Object.freeze(options.trust.keys);
  if (options.trust) Object.freeze(options.trust);
  if (options.buckets) {
    for (const place of options.buckets.places) Object.freeze(place);
    Object.freeze(options.buckets.places);
    Object.freeze(options.buckets);
  }
  return Object.freeze(options);
}

function checkIndex(options: ConfigOptions, cwd: string): string | undefined {
  const { index } = options;
  if (index === undefined) return undefined;
  if (typeof index !== 'string' || index.trim() === '')
    failOption('index', `must be the path of a file \`sisu-skills index\` wrote, got ${describeValue(index)}.`);
  if (options.preload === true)
    failOption('index', 'cannot be used with `preload: true`:', 'the index holds no instructions to preload. Use one or the other.');
  return isObjectUrl(index.trim()) ? checkS3Index(index) : resolveDirectory(index, cwd);
}
