import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  createDiagnostic,
  DiagnosticCodes,
  DiagnosticSeverity,
  DiagnosticSink,
  formatDiagnostic,
  isError,
  severityOf,
  type Diagnostic,
  type SeverityRule,
} from '../src/base/diagnostics.js';

const at = (line: number, severity: Diagnostic['severity'] = 'error'): Diagnostic => ({
  code: 'YAML_SYNTAX',
  severity,
  file: '/s/x/SKILL.md',
  line,
  column: 7,
  message: 'bad thing',
});

describe('diagnostics', () => {
  it('formats as file:line:column CODE message, or file CODE message without a position', () => {
    expect(formatDiagnostic(at(3))).toBe('/s/x/SKILL.md:3:7 YAML_SYNTAX bad thing');
    expect(formatDiagnostic(at(0))).toBe('/s/x/SKILL.md YAML_SYNTAX bad thing');
  });

  it('tells errors from warnings', () => {
    expect(isError(at(1))).toBe(true);
    expect(isError(at(1, 'warning'))).toBe(false);
  });
});

describe('severity table', () => {
  it('has a rule for every code, and strict turns only the strict rules into errors', () => {
    expect(Object.keys(DiagnosticSeverity).sort()).toEqual(Object.keys(DiagnosticCodes).sort());
    expect(severityOf('NAME_FORMAT')).toBe('warning');
    expect(severityOf('NAME_FORMAT', true)).toBe('error');
    expect(severityOf('SYMLINK_LOOP', true)).toBe('warning');
    expect(severityOf('NAME_INVISIBLE_CHARACTER', false)).toBe('error');
    // Reported only under strict (the validator decides), and then only a warning.
    expect(severityOf('FIELD_NOT_IN_SPEC', true)).toBe('warning');
    expect(severityOf('ALLOWED_TOOLS_LIST', false)).toBe('warning');
  });

  it('builds diagnostics from a code, a place and a message', () => {
    expect(createDiagnostic('DIRECTORY_NOT_FOUND', '/skills', 'Create it.')).toEqual({
      code: 'DIRECTORY_NOT_FOUND',
      severity: 'warning',
      file: '/skills',
      line: 0,
      column: 0,
      message: 'Create it.',
    });
    const sink = new DiagnosticSink(true);
    sink.report('DESCRIPTION_TOO_LONG', { file: 'f', line: 3, column: 1 }, 'Shorten it.');
    expect(sink.hasErrors).toBe(true);
    expect(sink.diagnostics).toEqual([
      { code: 'DESCRIPTION_TOO_LONG', severity: 'error', file: 'f', line: 3, column: 1, message: 'Shorten it.' },
    ]);
    expect(new DiagnosticSink().hasErrors).toBe(false);
  });
});

/** The rows of docs/diagnostics.md's code table (the README links to it): each code it names, with the severity it gives. */
function readmeSeverities(): Map<string, SeverityRule> {
  const readme = readFileSync(new URL('../docs/diagnostics.md', import.meta.url), 'utf8');
  const start = readme.indexOf('\n| code | severity | meaning |\n');
  expect(start).toBeGreaterThan(0);
  const next = readme.indexOf('\n#', start + 2);
  const section = readme.slice(start + 1, next < 0 ? undefined : next);
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  const found = new Map<string, SeverityRule>();
  for (const row of rows) {
    const [codes = '', severity = '', meaning = ''] = row
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim());
    const rule: SeverityRule | undefined =
      severity === 'error'
        ? 'error'
        : severity === 'warning'
          ? 'warning'
          : severity === 'warning (error if `strict`)'
            ? 'strict'
            : severity === 'warning (only if `strict`)'
              ? 'strict-warning'
              : undefined;
    expect(rule, `severity "${severity}" in docs/diagnostics.md row ${row}`).toBeDefined();
    for (const [, code = ''] of codes.matchAll(/`([A-Z_*]+)`/g)) {
      // `YAML_*`: the codes are listed in the meaning column.
      const named = code.endsWith('*')
        ? [...meaning.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1] ?? '').filter((c) => c.startsWith(code.slice(0, -1)))
        : [code];
      for (const name of named) {
        expect(found.has(name), `${name} is listed twice`).toBe(false);
        found.set(name, rule ?? 'error');
      }
    }
  }
  return found;
}

describe("docs/diagnostics.md's table", () => {
  it('lists every code with the severity the table gives it, and no other code', () => {
    const readme = readmeSeverities();
    expect(Object.fromEntries([...readme].sort())).toEqual(Object.fromEntries(Object.entries(DiagnosticSeverity).sort()));
  });
});
