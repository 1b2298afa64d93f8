import { describe, expect, it } from 'vitest';
import { checkResourcePath } from '../src/resources/resource-path.js';

describe('checkResourcePath', () => {
  it.each([
    ['references/guide.md', 'references/guide.md'],
    ['./references//guide.md', 'references/guide.md'],
    ['  scripts/run.sh ', 'scripts/run.sh'],
    ['scripts\\run.sh', 'scripts/run.sh'],
    ['..hidden/x.md', '..hidden/x.md'],
    ['100%.txt', '100%.txt'],
    ['notes%20v2.md', 'notes%20v2.md'],
    ['café/menu.md', 'café/menu.md'],
    ['notes:v2.txt', 'notes:v2.txt'],
  ])('%j is fine as %j', (input, clean) => {
    expect(checkResourcePath(input)).toEqual({ ok: true, path: clean });
  });

  it.each([
    ['', 'empty'],
    ['  ', 'empty'],
    ['.', 'empty'],
    ['./', 'empty'],
    ['a\0b', 'nul'],
    ['/etc/passwd', 'absolute'],
    ['\\etc\\passwd', 'absolute'],
    ['//server/share/x', 'absolute'],
    ['C:\\Windows\\win.ini', 'drive'],
    ['c:file', 'drive'],
    ['file:///etc/passwd', 'url'],
    ['https://example.com/x', 'url'],
    ['../../etc/passwd', 'parent'],
    ['a/../b', 'parent'],
    ['..\\..\\etc\\passwd', 'parent'],
    ['%2e%2e%2f%2e%2e%2fetc%2fpasswd', 'encoded'],
    ['%2E%2E/etc', 'encoded'],
    ['..%2fetc', 'encoded'],
    ['a%2f..%2f..%2fx', 'encoded'],
    ['%252e%252e%252fetc', 'encoded'],
    ['%2fetc%2fpasswd', 'encoded'],
    ['%5c..%5cx', 'encoded'],
    ['a%00b', 'encoded'],
    ['\uff0e\uff0e\uff0fetc\uff0fpasswd', 'lookalike'],
    ['..\uff0fetc', 'lookalike'],
    ['\u2025/etc', 'lookalike'],
    ['\uff0fetc\uff0fpasswd', 'lookalike'],
    ['references/\u202Edm.exe', 'hidden-characters'],
    ['a\u200Bb.md', 'hidden-characters'],
    ['a\nb', 'hidden-characters'],
  ])('%j is refused as %s', (input, problem) => {
    const result = checkResourcePath(input);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problem).toBe(problem);
      expect(result.detail.length).toBeGreaterThan(0);
    }
  });
});
