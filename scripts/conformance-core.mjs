// Conformance of parseFrontmatter against the `yaml` package, shared by
// scripts/conformance.mjs (built package) and test/conformance.test.ts (src).
// The parser and the oracle are passed in, so this file imports neither.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every SKILL.md under `dir`, sorted, skipping node_modules and .git. */
export function findSkillFiles(dir) {
  const found = [];
  const walk = (folder) => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== '.git') walk(path);
      } else if (entry.isFile() && entry.name === 'SKILL.md') {
        found.push(path);
      }
    }
  };
  walk(dir);
  return found.sort();
}

/**
 * First difference between two values as a path and both sides, or
 * undefined when deep-equal (NaN equals NaN, -0 differs from 0, like
 * Object.is on leaves).
 */
export function firstDifference(actual, expected, path = '$') {
  if (Object.is(actual, expected)) return undefined;
  const bothObjects = actual !== null && expected !== null && typeof actual === 'object' && typeof expected === 'object';
  if (!bothObjects || Array.isArray(actual) !== Array.isArray(expected)) {
    return { path, actual, expected };
  }
  const actualKeys = Object.keys(actual);
  const expectedKeys = Object.keys(expected);
  for (const key of expectedKeys) {
    if (!Object.hasOwn(actual, key)) return { path: `${path}.${key}`, actual: undefined, expected: expected[key] };
    const inner = firstDifference(actual[key], expected[key], `${path}.${key}`);
    if (inner) return inner;
  }
  for (const key of actualKeys) {
    if (!Object.hasOwn(expected, key)) return { path: `${path}.${key}`, actual: actual[key], expected: undefined };
  }
  return undefined;
}

/**
 * Checks one SKILL.md text. Outcomes:
 * - `equal`: yaml parses the frontmatter and our metadata is deep-equal
 *   (a file without frontmatter counts as equal: both give `{}`);
 * - `recovered`: yaml throws, we still read `name` and `description` as
 *   strings and said so with a warning;
 * - `failed`: anything else, with `reason`.
 */
export function checkSkill(text, { parseFrontmatter, parseYaml }) {
  const ours = parseFrontmatter(text);
  if (!ours.hasFrontmatter) {
    return Object.keys(ours.metadata).length === 0
      ? { outcome: 'equal' }
      : { outcome: 'failed', reason: 'metadata read from a file without frontmatter' };
  }
  let expected;
  let yamlError;
  try {
    expected = parseYaml(ours.frontmatter ?? '');
  } catch (error) {
    yamlError = error;
  }
  if (yamlError === undefined) {
    const errors = ours.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) {
      return { outcome: 'failed', reason: `yaml parses it, we report ${errors[0].code}: ${errors[0].message} (line ${errors[0].line})` };
    }
    const difference = firstDifference(ours.metadata, expected ?? {});
    if (difference === undefined) return { outcome: 'equal' };
    return {
      outcome: 'failed',
      reason: `at ${difference.path}: ours ${show(difference.actual)}, yaml ${show(difference.expected)}`,
    };
  }
  const { name, description } = ours.metadata;
  const warned = ours.diagnostics.some((d) => d.severity === 'warning');
  if (typeof name === 'string' && typeof description === 'string' && warned) return { outcome: 'recovered' };
  const first = ours.diagnostics[0];
  return {
    outcome: 'failed',
    reason:
      `yaml throws (${String(yamlError?.message ?? yamlError).split('\n')[0]}); ` +
      `we ${first ? `report ${first.code}: ${first.message}` : 'report nothing'}`,
  };
}

function show(value) {
  const text = typeof value === 'string' ? JSON.stringify(value) : typeof value === 'number' ? String(value) : JSON.stringify(value);
  return text === undefined ? 'undefined' : text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
