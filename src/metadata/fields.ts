/**
 * The frontmatter fields skill metadata knows, in one table (METADATA_FIELDS):
 * each field's kind, whether it is required, and what it must be, for
 * messages. Both ways of checking metadata are made from it: the zod schema
 * (SkillMetadataSchema, exported) and the fast path discovery takes for the
 * common valid shape (fastParse), which gives zod's own output without zod's
 * per-field contexts and issue objects. Each kind holds its zod type beside
 * the plain check that accepts exactly what that type accepts, so the two
 * cannot drift apart field by field; property tests compare them over random
 * input and the shared corpus (test/schema.test.ts). Pure.
 */
import { z } from 'zod';
import type { SkillMetadata } from '../base/model.js';

/** Whether a string holds more than whitespace (what a required text must). */
export const hasText = (value: string): boolean => value.trim().length > 0;

/** What zod calls an object: not null, an array, a promise-like, a Map, a Set or a Date. */
function isZodObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (value instanceof Map || value instanceof Set || value instanceof Date) return false;
  const { then, catch: onCatch } = value as { then?: unknown; catch?: unknown };
  return !(typeof then === 'function' && typeof onCatch === 'function');
}

/** An array whose every slot (holes included) holds a string. */
function isStringArray(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'string') return false;
  return true;
}

/** z.record(z.string(), z.unknown())'s output: every enumerable key but `__proto__`, undefined values kept. */
function copyRecord(record: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key in record) {
    if (key !== '__proto__') copy[key] = record[key];
  }
  return copy;
}

/** A value zod passes through as it is. */
const asIs = (value: unknown): unknown => value;
/** An array as zod outputs it: a fresh copy. */
const arrayCopy = (value: unknown): unknown => (Array.isArray(value) ? value.slice() : value);

/**
 * A field's kind: its zod type, and the fast path's view of that type:
 * `accepts` takes exactly the values the type accepts, and `copy` gives a
 * value as zod outputs it (zod builds fresh arrays and records).
 */
interface FieldKind {
  schema(): z.ZodTypeAny;
  accepts(value: unknown): boolean;
  copy(value: unknown): unknown;
}

const KINDS = {
  /** A string holding more than whitespace. */
  text: { schema: () => z.string().refine(hasText), accepts: (value) => typeof value === 'string' && hasText(value), copy: asIs },
  string: { schema: () => z.string(), accepts: (value) => typeof value === 'string', copy: asIs },
  /** A map of keys to anything. */
  map: {
    schema: () => z.record(z.string(), z.unknown()),
    accepts: isZodObject,
    copy: (value) => copyRecord(value as Record<string, unknown>),
  },
  /** A string, or a list of strings. */
  stringOrList: {
    schema: () => z.union([z.string(), z.array(z.string())]),
    accepts: (value) => typeof value === 'string' || isStringArray(value),
    copy: arrayCopy,
  },
  list: { schema: () => z.array(z.string()), accepts: isStringArray, copy: arrayCopy },
} satisfies Record<string, FieldKind>;

type KindName = keyof typeof KINDS;

interface Field {
  kind: KindName;
  /** Absent: the field may be left out (and an empty value means "not given"). */
  required?: true;
  /** What the field must be, with an example, for messages. */
  expected: string;
}

/**
 * Every field the schema knows, in the order zod lists them in its output
 * (then unknown keys, kept as they were). A string field (kind text or
 * string) that YAML read as a number or a boolean is read back as its source
 * text before it is checked (`version: 1.10` stays "1.10").
 */
export const METADATA_FIELDS = {
  name: { kind: 'text', required: true, expected: 'a string such as `name: pdf-tools`' },
  description: { kind: 'text', required: true, expected: 'a string saying what the skill does and when to use it' },
  license: { kind: 'string', expected: 'a string such as `license: MIT`' },
  // Its length limit is a naming-and-length rule (schema.ts checkNamingRules): a warning unless strict.
  compatibility: { kind: 'string', expected: 'a string such as `compatibility: Requires Python 3.11`' },
  metadata: { kind: 'map', expected: 'a map of keys to values (indented `key: value` lines under `metadata:`)' },
  'allowed-tools': { kind: 'stringOrList', expected: 'a string or a list of strings, e.g. `allowed-tools: [Read, Bash]`' },
  version: { kind: 'string', expected: 'a string such as `version: "1.2.0"`' },
  author: { kind: 'string', expected: 'a string such as `author: Jane Doe`' },
  tags: { kind: 'list', expected: 'a list of strings, e.g. `tags: [pdf, forms]`' },
} as const satisfies Record<string, Field>;

type FieldName = keyof typeof METADATA_FIELDS;
type KindSchema<K extends KindName> = ReturnType<(typeof KINDS)[K]['schema']>;
/** The zod shape a table of fields makes: a required field's kind as it is, any other's made optional. */
type ShapeOf<T extends Record<string, Field>> = {
  -readonly [F in keyof T]: T[F]['required'] extends true ? KindSchema<T[F]['kind']> : z.ZodOptional<KindSchema<T[F]['kind']>>;
};

function shapeOf<T extends Record<string, Field>>(fields: T): ShapeOf<T> {
  const shape: Record<string, z.ZodTypeAny> = {};
  for (const [key, field] of Object.entries(fields)) {
    const type = KINDS[field.kind].schema();
    shape[key] = field.required ? type : type.optional();
  }
  // Built key by key from the same table ShapeOf maps: the one cast between them.
  return shape as ShapeOf<T>;
}

export const SkillMetadataSchema = z
  .object(shapeOf(METADATA_FIELDS))
  // Unknown keys are the skill author's business: keep them as they were.
  .passthrough();

// Compile-time check: what the schema produces is a SkillMetadata.
type AssertSkillMetadata<T extends SkillMetadata> = T;
type _SchemaOutputIsSkillMetadata = AssertSkillMetadata<z.infer<typeof SkillMetadataSchema>>;

/** One table row with its name and kind resolved, as the fast path walks them. */
interface FieldCheck {
  key: FieldName;
  required: boolean;
  kind: FieldKind;
  /** Kind text or string: YAML's numbers and booleans are read back as text first. */
  stringy: boolean;
}

const CHECKS: readonly FieldCheck[] = (Object.keys(METADATA_FIELDS) as FieldName[]).map((key) => {
  const field: Field = METADATA_FIELDS[key];
  return { key, required: field.required === true, kind: KINDS[field.kind], stringy: field.kind === 'text' || field.kind === 'string' };
});
const BY_NAME: ReadonlyMap<string, Field> = new Map(Object.entries(METADATA_FIELDS));

/** The fields whose value is a string (kind text or string). */
export const STRING_FIELDS: readonly FieldName[] = CHECKS.filter((check) => check.stringy).map(({ key }) => key);
/** The fields that may be left out. */
export const OPTIONAL_FIELDS: readonly FieldName[] = CHECKS.filter((check) => !check.required).map(({ key }) => key);

/** Whether `key` is a field the metadata must have. */
export function isRequiredField(key: string): boolean {
  return BY_NAME.get(key)?.required === true;
}

/** What the field `key` must be, with an example; undefined for a key the table does not know. */
export function expectedOf(key: string): string | undefined {
  return BY_NAME.get(key)?.expected;
}

/**
 * `SkillMetadataSchema.safeParse(input).data` when the schema accepts `input`,
 * made from the same table; undefined when it does not (zod then decides, so
 * its messages stay zod's). The output is built the way zod builds it (fresh
 * object, arrays and metadata map; the table's keys first; `__proto__`
 * dropped), so the two paths cannot be told apart.
 */
export function fastParse(input: Record<string, unknown>): SkillMetadata | undefined {
  // Each field read once, by position: reading `input[key]` again in the second loop cost the table
  // some 10% of the fast path (scripts/metadata-throughput.mjs).
  const values: unknown[] = [];
  for (let i = 0; i < CHECKS.length; i++) {
    const { key, required, kind } = CHECKS[i] as FieldCheck;
    const value = input[key];
    if (value === undefined ? required : !kind.accepts(value)) return undefined;
    values[i] = value;
  }
  const output: Record<string, unknown> = {};
  for (let i = 0; i < CHECKS.length; i++) {
    const { key, kind } = CHECKS[i] as FieldCheck;
    const value = values[i];
    // zod sets a known key whenever the input has it, even to undefined.
    if (value !== undefined) output[key] = kind.copy(value);
    else if (key in input) output[key] = value;
  }
  for (const key in input) {
    if (BY_NAME.has(key) || key === '__proto__') continue;
    const value = input[key];
    if (value !== undefined) output[key] = value;
  }
  return output as SkillMetadata;
}
