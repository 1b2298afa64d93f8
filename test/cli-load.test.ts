/**
 * src/cli/load.ts on its own: the CLI's one severity rule (cliSeverity) and
 * how classifyDiagnostics grades and orders a discovery's problems.
 */
import { describe, expect, it } from 'vitest';
import { createDiagnostic, type Diagnostic, type DiagnosticCode } from '../src/base/diagnostics.js';
import { classifyDiagnostics, cliSeverity } from '../src/cli/load.js';

const GIVEN = '/work/skills';
const named = new Set([GIVEN]);

function at(code: DiagnosticCode, file: string, line = 0, column = 0, strict = false): Diagnostic {
  return createDiagnostic(code, line > 0 ? { file, line, column } : file, `about ${file}`, strict);
}

describe('cliSeverity: a folder or package named on the command line that cannot be read or found is an error', () => {
  it.each<DiagnosticCode>(['DIRECTORY_NOT_FOUND', 'DIRECTORY_UNREADABLE'])(
    '%s about a folder given: error (discovery says warning)',
    (code) => {
      const d = at(code, GIVEN);
      expect(d.severity).toBe('warning');
      expect(cliSeverity(d, named)).toBe('error');
    },
  );

  it.each<DiagnosticCode>(['PACKAGE_NOT_FOUND', 'PACKAGE_NOT_A_SKILL'])(
    '%s: error wherever it points (the CLI scans only packages it was given)',
    (code) => {
      const d = at(code, '/work/node_modules/@sisu-ai/skill-x');
      expect(cliSeverity(d, named)).toBe('error');
    },
  );

  it('leaves a folder found inside a given one (not named by the user) as discovery graded it', () => {
    const inner = at('DIRECTORY_UNREADABLE', `${GIVEN}/private`);
    expect(cliSeverity(inner, named)).toBe('warning');
  });

  it('leaves every other code as severityOf graded it, strict included', () => {
    expect(cliSeverity(at('SKILL_DUPLICATE', GIVEN), named)).toBe('warning');
    expect(cliSeverity(at('YAML_SYNTAX', `${GIVEN}/a/SKILL.md`, 2, 1), named)).toBe('error');
    expect(cliSeverity(at('NAME_MISMATCH', `${GIVEN}/a/SKILL.md`, 2, 1), named)).toBe('warning');
    expect(cliSeverity(at('NAME_MISMATCH', `${GIVEN}/a/SKILL.md`, 2, 1, true), named)).toBe('error');
  });
});

describe('classifyDiagnostics', () => {
  it('raises problems about named places to errors, lists them as unreadable, and counts after raising', () => {
    const missing = at('DIRECTORY_NOT_FOUND', GIVEN);
    const lookalike = at('NAME_LOOKALIKE', `${GIVEN}/b/SKILL.md`, 2, 7);
    const found = classifyDiagnostics({ errors: [], warnings: [missing, lookalike], scannedDirectories: [GIVEN] });
    expect(found.unreadable).toEqual([{ ...missing, severity: 'error' }]);
    expect(found.diagnostics).toEqual([{ ...missing, severity: 'error' }, lookalike]);
    expect({ errors: found.errors, warnings: found.warnings }).toEqual({ errors: 1, warnings: 1 });
  });

  it("orders by file in code-unit order (never the locale's), then line, then column", () => {
    // In code-unit order 'B' < 'a' < 'é'; a locale-aware sort would put 'a' first and 'é' before 'z'.
    const files = ['/s/é/SKILL.md', '/s/a/SKILL.md', '/s/B/SKILL.md', '/s/z/SKILL.md'];
    const problems = [
      ...files.map((file) => at('YAML_SYNTAX', file, 1, 1)),
      at('YAML_SYNTAX', '/s/a/SKILL.md', 1, 9),
      at('YAML_SYNTAX', '/s/a/SKILL.md', 0),
    ];
    const { diagnostics } = classifyDiagnostics({ errors: problems, warnings: [], scannedDirectories: ['/s'] });
    expect(diagnostics.map((d) => `${d.file}:${d.line}:${d.column}`)).toEqual([
      '/s/B/SKILL.md:1:1',
      '/s/a/SKILL.md:0:0',
      '/s/a/SKILL.md:1:1',
      '/s/a/SKILL.md:1:9',
      '/s/z/SKILL.md:1:1',
      '/s/é/SKILL.md:1:1',
    ]);
  });
});
