import { describe, expect, it } from 'vitest';
import { formatDiagnostic, isError, type Diagnostic } from '../src/diagnostics.js';

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
