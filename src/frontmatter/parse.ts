/**
 * parseFrontmatter(text): split the fences, read the YAML, never throw.
 * split.ts -> lexer.ts (with plain.ts, quoted.ts, block-scalar.ts) -> compose.ts;
 * problems go into one diagnostic sink for the pass and come back as data.
 */
import { DiagnosticSink, type Diagnostic } from '../base/diagnostics.js';
import { compose } from './compose.js';
import { splitFrontmatter } from './split.js';

export interface FieldInfo {
  /** 1-based line of the key. */
  line: number;
  /** 1-based column of the key. */
  column: number;
  /** Source text of the value when it is a plain (unquoted, one-line or folded) scalar, for fields that must stay strings (`version: 2.0` -> "2.0"). */
  plain?: string;
}

export interface ParseOptions {
  /** File name used in diagnostics. Default: `<input>`. */
  file?: string;
  /** Deepest nesting of maps and lists before a YAML_TOO_DEEP error. Default: 64 (at most 1000). */
  maxDepth?: number;
}

export interface ParsedFrontmatter {
  /** The frontmatter as JavaScript values; `{}` when there is none. */
  metadata: Record<string, unknown>;
  /** Everything after the closing fence (the whole text when there is no frontmatter). */
  body: string;
  /** 1-based line on which `body` starts. */
  bodyLine: number;
  /** Whether the text opened with a `---` fence. */
  hasFrontmatter: boolean;
  /** Position (and plain source text) of each top-level key. */
  fields: Record<string, FieldInfo>;
  diagnostics: Diagnostic[];
  /** The YAML text between the fences, line endings normalised to `\n` ('' when none). */
  frontmatter?: string;
}

const DEFAULT_MAX_DEPTH = 64;
/** Recursion uses a few stack frames per level: keep far below the engine's limit. */
const MAX_MAX_DEPTH = 1000;

function depthLimit(requested: number | undefined): number {
  if (requested === undefined || !Number.isFinite(requested)) return DEFAULT_MAX_DEPTH;
  return Math.min(Math.max(Math.floor(requested), 1), MAX_MAX_DEPTH);
}

export function parseFrontmatter(text: string, options: ParseOptions = {}): ParsedFrontmatter {
  const file = options.file ?? '<input>';
  const sink = new DiagnosticSink();
  try {
    return parseUnsafe(String(text), file, depthLimit(options.maxDepth), sink);
  } catch (error) {
    // Not expected: the layers report problems as data. Kept so a bug never crashes a host.
    const failed = new DiagnosticSink();
    failed.report('YAML_SYNTAX', { file, line: 1, column: 1 }, `internal parser error: ${String(error)}`);
    return { metadata: {}, body: '', bodyLine: 1, hasFrontmatter: false, fields: {}, diagnostics: failed.diagnostics };
  }
}

function parseUnsafe(text: string, file: string, maxDepth: number, sink: DiagnosticSink): ParsedFrontmatter {
  const split = splitFrontmatter(text);
  const result: ParsedFrontmatter = {
    body: split.body,
    bodyLine: split.bodyLine,
    hasFrontmatter: split.hasFrontmatter,
    frontmatter: split.yaml,
    metadata: {},
    fields: {},
    diagnostics: sink.diagnostics,
  };
  if (!split.hasFrontmatter) return result;
  if (!split.closed) {
    sink.report('FRONTMATTER_UNCLOSED', { file, line: 1, column: 1 }, 'frontmatter opened with --- on line 1 is never closed');
    return result;
  }
  const { value, fields } = compose(split.yaml, { file, firstLine: split.yamlLine, maxDepth, sink });
  if (value === null || value === undefined) return result;
  if (typeof value !== 'object' || Array.isArray(value)) {
    // After a YAML error the value is partial: that error says what is wrong.
    if (!sink.hasErrors) {
      const what = Array.isArray(value) ? 'a list' : 'a single value';
      sink.report(
        'FRONTMATTER_NOT_MAP',
        { file, line: split.yamlLine, column: 1 },
        `frontmatter must be a map of "key: value" lines, not ${what}`,
      );
    }
    return result;
  }
  result.metadata = value as Record<string, unknown>;
  result.fields = fields;
  return result;
}
