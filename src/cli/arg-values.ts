/**
 * Option values read the one way every command reads them: `--<name> <number>`
 * within a range, or a usage error (exit code 2) that says what it takes.
 */
import { SkillsUsageError } from '../config/errors.js';
import type { CommandName } from './usage.js';

/** `--<name> <number>` within [min, max] (integers only when `integer`); undefined when not given. */
export function numberOf(
  command: CommandName,
  name: string,
  value: unknown,
  range: { min: number; max: number; integer?: boolean; exclusive?: boolean },
): number | undefined {
  if (typeof value !== 'string') return undefined;
  const n = Number(value);
  const pattern = range.integer ? /^\d+$/ : /^\d*\.?\d+$/;
  const inRange = range.exclusive ? n > range.min && n < range.max : n >= range.min && n <= range.max;
  if (!pattern.test(value.trim()) || !inRange) {
    const kind = range.integer ? 'a whole number' : 'a number';
    const bounds = range.exclusive ? `between ${range.min} and ${range.max} (exclusive)` : `from ${range.min} to ${range.max}`;
    throw new SkillsUsageError(`${command}: --${name} takes ${kind} ${bounds}, got ${JSON.stringify(value)}.`);
  }
  return n;
}
