/**
 * parseFrontmatter(text): split the fences, read the YAML, never throw.
 * PLACEHOLDER: a naive reader so other layers can be built; replaced by the
 * lexer -> compose pipeline.
 */
import type { Diagnostic } from '../diagnostics.js';

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
  /** Deepest nesting of maps and lists before a YAML_TOO_DEEP error. Default: 64. */
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
}

export function parseFrontmatter(text: string, options: ParseOptions = {}): ParsedFrontmatter {
  const file = options.file ?? '<input>';
  const source = text.replace(/^\uFEFF/, '');
  const lines = source.split(/\r\n|\r|\n/);
  if (lines[0]?.trimEnd() !== '---') {
    return { metadata: {}, body: source, bodyLine: 1, hasFrontmatter: false, fields: {}, diagnostics: [] };
  }
  const close = lines.findIndex((l, i) => i > 0 && /^(---|\.\.\.)\s*$/.test(l));
  if (close < 0) {
    return {
      metadata: {},
      body: '',
      bodyLine: lines.length + 1,
      hasFrontmatter: true,
      fields: {},
      diagnostics: [{ code: 'FRONTMATTER_UNCLOSED', severity: 'error', file, line: 1, column: 1, message: 'frontmatter opened with --- on line 1 is never closed' }],
    };
  }
  const metadata: Record<string, unknown> = {};
  const fields: Record<string, FieldInfo> = {};
  for (let i = 1; i < close; i++) {
    const m = /^([A-Za-z0-9_-]+):\s*(.*)$/.exec(lines[i] ?? '');
    if (m && m[1] !== undefined && m[2] !== undefined) {
      metadata[m[1]] = m[2].replace(/^["']|["']$/g, '');
      fields[m[1]] = { line: i + 1, column: 1, plain: m[2] };
    }
  }
  return { metadata, body: lines.slice(close + 1).join('\n'), bodyLine: close + 2, hasFrontmatter: true, fields, diagnostics: [] };
}
