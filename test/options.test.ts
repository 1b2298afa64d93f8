import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SkillsConfigError } from '../src/config/errors.js';
import { nodeFileSystem } from '../src/base/fs.js';
import { resolveDirectory, resolveOptions } from '../src/config/resolve.js';
import { DEFAULTS } from '../src/config/defaults.js';
import { hooksOf, type SkillsOptions } from '../src/run/options.js';

function configError(options: unknown): SkillsConfigError {
  try {
    resolveOptions(options as SkillsOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(SkillsConfigError);
    return error as SkillsConfigError;
  }
  throw new Error('expected resolveOptions to throw');
}

describe('resolveOptions', () => {
  it('fills in documented defaults', () => {
    const resolved = resolveOptions({ directories: ['/skills'] });
    expect(resolved).toMatchObject({
      directories: ['/skills'],
      include: [],
      exclude: [],
      maxFileSize: 100 * 1024,
      maxSkillSize: 500 * 1024,
      cacheTtl: 5 * 60 * 1000,
      strict: false,
      preload: false,
      maxListedResources: 200,
      maxInstructionChars: 50_000,
      resourceTool: true,
      secretPatterns: [],
      catalogBudget: 8000,
      findSkills: undefined,
      rankInstructions: true,
      always: [],
      autoActivate: undefined,
      keepInView: { maxChars: 50_000, maxSkillChars: 20_000 },
      localCopies: { root: undefined, maxBytes: 64 * 1024 * 1024 },
      watch: undefined,
      signal: undefined,
      refresh: 60_000,
      storageWait: 3_000,
      buckets: undefined,
    });
    expect(resolved.fs).toBe(nodeFileSystem);
    expect(DEFAULTS).toEqual({
      maxFileSize: 102400,
      maxSkillSize: 512000,
      maxListedResources: 200,
      maxInstructionChars: 50000,
      resourceTool: true,
      cacheTtl: 300000,
      strict: false,
      preload: false,
      catalogBudget: 8000,
      rankInstructions: true,
      autoActivate: { threshold: 0.3, maxSkills: 1 },
      keepInView: { maxChars: 50000, maxSkillChars: 20000 },
      refresh: 60000,
      storageWait: 3000,
      watch: { debounceMs: 200 },
      localCopies: { maxBytes: 67108864 },
    });
  });

  it('resolves to plain frozen data, leaving what the caller passed in as it is', () => {
    const fs = { ...nodeFileSystem };
    const resolved = resolveOptions({
      directories: ['/skills', 's3://bucket/skills'],
      autoActivate: true,
      watch: true,
      fs,
      s3: { region: 'x' },
    });
    expect(Object.isFrozen(resolved)).toBe(true);
    for (const part of [
      resolved.directories,
      resolved.include,
      resolved.always,
      resolved.autoActivate,
      resolved.keepInView,
      resolved.watch,
      resolved.localCopies,
    ]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(Object.isFrozen(resolved.buckets)).toBe(true);
    expect(Object.isFrozen(resolved.buckets?.places)).toBe(true);
    expect(resolved.buckets?.places).toEqual([{ bucket: 'bucket', prefix: 'skills/', root: 's3://bucket/skills' }]);
    expect(resolved.fs).toBe(fs);
    expect(Object.isFrozen(fs)).toBe(false);
  });

  it('keepInView: on by default, false turns it off, an object overrides the budget, mistakes say how to fix them', () => {
    const resolve = (keepInView: unknown) => resolveOptions({ directories: ['/s'], keepInView } as never).keepInView;
    expect(resolve(true)).toEqual({ maxChars: 50_000, maxSkillChars: 20_000 });
    expect(resolve(false)).toBeUndefined();
    expect(resolve({ maxChars: 9000 })).toEqual({ maxChars: 9000, maxSkillChars: 20_000 });
    expect(resolve({ maxSkillChars: Infinity })).toEqual({ maxChars: 50_000, maxSkillChars: Infinity });
    expect(configError({ directories: ['/s'], keepInView: 'yes' })).toMatchObject({ option: 'keepInView' });
    expect(configError({ directories: ['/s'], keepInView: { maxChars: 0 } })).toMatchObject({ option: 'keepInView.maxChars' });
    expect(configError({ directories: ['/s'], keepInView: { maxSkillChars: -1 } })).toMatchObject({ option: 'keepInView.maxSkillChars' });
    expect(configError({ directories: ['/s'], keepInView: { budget: 1 } })).toMatchObject({ option: 'keepInView.budget' });
  });

  it('localCopies: on by default in a folder of its own, a folder or { root, maxBytes } against cwd, false turns it off', () => {
    const resolve = (localCopies: unknown) => resolveOptions({ directories: ['/s'], cwd: '/app', localCopies } as never).localCopies;
    expect(resolve(undefined)).toEqual({ root: undefined, maxBytes: 64 * 1024 * 1024 });
    expect(resolve(true)).toEqual({ root: undefined, maxBytes: 64 * 1024 * 1024 });
    expect(resolve(false)).toBeUndefined();
    expect(resolve('cache/skills')).toEqual({ root: '/app/cache/skills', maxBytes: 64 * 1024 * 1024 });
    expect(resolve({ root: '/var/cache/skills', maxBytes: 1024 })).toEqual({ root: '/var/cache/skills', maxBytes: 1024 });
    expect(resolve({ maxBytes: Infinity })).toEqual({ root: undefined, maxBytes: Infinity });
    expect(configError({ directories: ['/s'], localCopies: 5 })).toMatchObject({ option: 'localCopies' });
    expect(configError({ directories: ['/s'], localCopies: 's3://bucket/copies' })).toMatchObject({
      option: 'localCopies',
      message: expect.stringContaining('must be a folder on this machine'),
    });
    expect(configError({ directories: ['/s'], localCopies: { root: '' } })).toMatchObject({ option: 'localCopies.root' });
    expect(configError({ directories: ['/s'], localCopies: { maxBytes: 0 } })).toMatchObject({ option: 'localCopies.maxBytes' });
    expect(configError({ directories: ['/s'], localCopies: { dir: '/x' } })).toMatchObject({ option: 'localCopies.dir' });
  });

  it('errors record the option at fault and a hint, and build their message from them (no prefix)', () => {
    const error = configError({ directories: ['a'], cacheTtl: '5m' });
    expect(error).toMatchObject({ option: 'cacheTtl', hint: 'Default: 300000.', name: 'SkillsConfigError' });
    expect(error.message).toBe('`cacheTtl` must be a whole number of 0 or more (or Infinity), got the string "5m". Default: 300000.');
    expect(configError({ directories: ['a'], autoActivate: { threshold: 2 } }).option).toBe('autoActivate.threshold');
    expect(configError({ directories: ['a'], include: ['ok', 3] }).option).toBe('include[1]');
    expect(configError({ directories: ['a'], packages: ['../x'] }).option).toBe('packages[0]');
    const missing = configError({});
    expect(missing.option).toBeUndefined();
    expect(missing.message).not.toMatch(/^\[skills\]/);
  });

  it('requires directories and says how to fix it', () => {
    for (const options of [undefined, {}, null, [], 'skills']) {
      const error = configError(options);
      expect(error.code).toBe('SKILLS_CONFIG');
      expect(error.message).toContain("directories: ['./skills']");
    }
  });

  it('rejects an empty directories list and blank entries', () => {
    expect(configError({ directories: [] }).message).toMatch(/`directories` is empty/);
    expect(configError({ directories: ['ok', ''] }).message).toMatch(/`directories\[1\]` must be a non-empty string/);
    expect(configError({ directories: 'skills' }).message).toMatch(/must be an array of strings, got the string "skills"/);
    expect(configError({ directory: 42 }).message).toMatch(/`directory` must be a non-empty string, got number 42/);
  });

  it('refuses directory and directories together', () => {
    expect(configError({ directory: 'a', directories: ['b'] }).message).toMatch(/either `directory` or `directories`/);
  });

  it('names unknown options and suggests the closest one', () => {
    expect(configError({ directories: ['a'], maxFilesize: 10 }).message).toMatch(
      /unknown option `maxFilesize`. Did you mean `maxFileSize`\?/,
    );
    expect(configError({ directories: ['a'], zzzzzzzzzzzz: 1 }).message).not.toMatch(/Did you mean/);
  });

  it('checks sizes, ttl, strict and fs', () => {
    expect(configError({ directories: ['a'], maxFileSize: 0 }).message).toMatch(/`maxFileSize` must be a whole number greater than 0/);
    expect(configError({ directories: ['a'], maxSkillSize: -1 }).message).toMatch(/`maxSkillSize`/);
    expect(configError({ directories: ['a'], cacheTtl: 1.5 }).message).toMatch(/`cacheTtl` must be a whole number of 0 or more/);
    expect(configError({ directories: ['a'], cacheTtl: '5m' }).message).toMatch(/got the string "5m"/);
    expect(configError({ directories: ['a'], strict: 'yes' }).message).toMatch(/`strict` must be true or false/);
    expect(configError({ directories: ['a'], preload: 1 }).message).toMatch(/`preload` must be true or false, got number 1/);
    expect(configError({ directories: ['a'], resourceTool: 'no' }).message).toMatch(/`resourceTool` must be true or false/);
    expect(configError({ directories: ['a'], secretPatterns: '*.env' }).message).toMatch(/`secretPatterns` must be an array of strings/);
    expect(configError({ directories: ['a'], maxListedResources: -5 }).message).toMatch(
      /`maxListedResources` must be a whole number of 0 or more/,
    );
    expect(resolveOptions({ directories: ['a'], secretPatterns: ['*.token'] }).secretPatterns).toEqual(['*.token']);
    expect(configError({ directories: ['a'], catalogBudget: -1 }).message).toMatch(/`catalogBudget`/);
    expect(configError({ directories: ['a'], findSkills: 'auto' }).message).toMatch(/`findSkills` must be true or false/);
    expect(configError({ directories: ['a'], rankInstructions: 'yes' }).message).toMatch(/`rankInstructions` must be true or false/);
    expect(configError({ directories: ['a'], always: 'debug' }).message).toMatch(/`always` must be a list of skill names/);
    expect(configError({ directories: ['a'], autoActivate: 0.5 }).message).toMatch(
      /`autoActivate` must be true, false or \{ threshold, maxSkills \}/,
    );
    expect(configError({ directories: ['a'], watch: 'yes' }).message).toMatch(/`watch` must be true, false or \{ debounceMs \}/);
    expect(configError({ directories: ['a'], watch: { debounce: 5 } }).message).toMatch(/`watch.debounce` is not an option/);
    expect(configError({ directories: ['a'], watch: { debounceMs: -5 } }).message).toMatch(/`watch.debounceMs`/);
    expect(configError({ directories: ['a'], watch: { debounceMs: Infinity } }).option).toBe('watch.debounceMs');
    expect(
      configError({ directories: ['a'], watch: true, fs: { ...nodeFileSystem, watch: undefined, watchFolder: undefined } }).message,
    ).toMatch(/`watch` needs an `fs` with a watch\(\) or watchFolder\(\) method/);
    expect(configError({ directories: ['a'], signal: {} }).message).toMatch(/`signal` must be an AbortSignal/);
    const resolved = resolveOptions({
      directories: ['a'],
      always: [' debug ', 'debug'],
      autoActivate: true,
      watch: { debounceMs: 50 },
      findSkills: false,
      rankInstructions: false,
    });
    expect(resolved).toMatchObject({
      always: ['debug'],
      autoActivate: { threshold: 0.3, maxSkills: 1 },
      watch: { debounceMs: 50 },
      findSkills: false,
      rankInstructions: false,
    });
    expect(resolveOptions({ directories: ['a'], watch: true }).watch).toEqual({ debounceMs: 200 });
    expect(configError({ directories: ['a'], cwd: '' }).message).toMatch(/`cwd` must be a non-empty string/);
    expect(configError({ directories: ['a'], include: [1] }).message).toMatch(/`include\[0\]`/);
    expect(configError({ directories: ['a'], fs: {} }).message).toMatch(/`fs` must implement readdir\(\)/);
    expect(resolveOptions({ directories: ['a'], cacheTtl: 0 }).cacheTtl).toBe(0);
    expect(resolveOptions({ directories: ['a'], cacheTtl: Infinity }).cacheTtl).toBe(Infinity);
  });

  it('resolves relative paths against cwd, expands ~ and drops repeats', () => {
    const resolved = resolveOptions({ directories: ['skills', './skills', '~/agent-skills', '/abs'], cwd: '/work/app' });
    expect(resolved.directories).toEqual([resolve('/work/app/skills'), join(homedir(), 'agent-skills'), '/abs']);
    expect(resolveOptions({ directory: 'x' }).directories).toEqual([resolve(process.cwd(), 'x')]);
    expect(resolveDirectory('~', '/tmp')).toBe(homedir());
  });

  it('autoActivate: off, on with defaults, or checked values', () => {
    const auto = (autoActivate: unknown) => resolveOptions({ directories: ['a'], autoActivate } as SkillsOptions).autoActivate;
    expect(auto(undefined)).toBeUndefined();
    expect(auto(false)).toBeUndefined();
    expect(auto(true)).toEqual({ threshold: 0.3, maxSkills: 1 });
    expect(auto({})).toEqual({ threshold: 0.3, maxSkills: 1 });
    expect(auto({ threshold: 0, maxSkills: 3 })).toEqual({ threshold: 0, maxSkills: 3 });
    for (const bad of [
      'yes',
      [],
      null,
      { threshold: 2 },
      { threshold: '0.5' },
      { threshold: Number.NaN },
      { maxSkills: 0 },
      { maxSkills: 1.5 },
      { treshold: 0.3 },
    ]) {
      expect(configError({ directories: ['a'], autoActivate: bad }).code).toBe('SKILLS_CONFIG');
    }
    expect(configError({ directories: ['a'], autoActivate: { treshold: 0.3 } }).option).toBe('autoActivate.treshold');
  });

  it('always: trimmed, deduplicated, and a list of names', () => {
    expect(resolveOptions({ directories: ['a'] }).always).toEqual([]);
    expect(resolveOptions({ directories: ['a'], always: [' debug', 'debug', 'explain'] }).always).toEqual(['debug', 'explain']);
    for (const bad of ['debug', [''], [1], {}]) expect(configError({ directories: ['a'], always: bad }).option).toBe('always');
  });

  it('visible, approve and onEvent: functions or absent; anything else names the option and its shape', () => {
    const visible = () => true;
    const approve = () => true;
    const onEvent = () => undefined;
    // config/ checks them; the run takes them as given (run/options.ts).
    const given = { directories: ['a'], visible, approve, onEvent };
    expect(resolveOptions(given).directories).toEqual([resolve('a')]);
    expect(hooksOf(given)).toMatchObject({ visible, approve, onEvent });
    expect(resolveOptions({ directories: ['a'] }).directories).toEqual([resolve('a')]);
    expect(hooksOf({ directories: ['a'] })).toMatchObject({ visible: undefined, approve: undefined, onEvent: undefined });
    for (const option of ['visible', 'approve', 'onEvent'] as const) {
      const error = configError({ directories: ['a'], [option]: true });
      expect(error.option).toBe(option);
      expect(error.message).toMatch(new RegExp(`\`${option}\` must be a function .*got boolean true`));
    }
  });
});
