import { describe, expect, it } from 'vitest';
import { foldName, invisibleOrControl } from '../src/metadata/names.js';

describe('foldName', () => {
  it('folds fullwidth, case, combining marks and ligatures to one key', () => {
    expect(foldName('ｐｄｆ-ｔｏｏｌｓ')).toBe('pdf-tools');
    expect(foldName('PDF-Tools')).toBe('pdf-tools');
    expect(foldName('pdf\u0301-tools')).toBe('pdf-tools');
    expect(foldName('pdf-tóols')).toBe('pdf-tools');
    expect(foldName('ﬁle-reader')).toBe('file-reader');
  });

  it('maps Cyrillic and Greek look-alikes to the Latin letters they resemble', () => {
    // Cyrillic р, о, с, е; Greek ο, ρ, upper-case Cyrillic Н.
    expect(foldName('\u0440df-tools')).toBe('pdf-tools');
    expect(foldName('c\u043e\u0434e')).not.toBe('code'); // д is not a look-alike of d
    expect(foldName('\u0441\u043ede-review')).toBe('code-review');
    expect(foldName('t\u03bf\u03bfls')).toBe('tools');
    expect(foldName('\u041delp')).toBe('help');
    expect(foldName('\u03a1DF')).toBe('pdf');
  });

  it('keeps names that differ to the eye apart', () => {
    expect(foldName('pdf-tools')).not.toBe(foldName('pdf-tool'));
    expect(foldName('git-helper')).not.toBe(foldName('git-helpers'));
    expect(foldName('数据')).toBe('数据');
  });
});

describe('invisibleOrControl', () => {
  it('accepts visible names, accented and non-Latin ones included', () => {
    for (const name of ['pdf-tools', 'héllo', '数据-tools', 'a b', '']) expect(invisibleOrControl(name)).toBeUndefined();
  });

  it('names every kind of line break with its code point and position', () => {
    expect(invisibleOrControl('a\nb')).toBe('a line break (U+000A) at character 2');
    expect(invisibleOrControl('ab\u2028')).toBe('a line break (U+2028) at character 3');
    expect(invisibleOrControl('\u2029')).toMatch(/^a line break \(U\+2029\)/);
    for (const br of ['\r', '\u000b', '\u000c', '\u0085']) expect(invisibleOrControl(`x${br}`)).toMatch(/^a line break/);
  });

  it('finds zero-width, bidi, control and other invisible characters', () => {
    expect(invisibleOrControl('pdf\u200btools')).toMatch(/^a zero-width character \(U\+200B\) at character 4/);
    expect(invisibleOrControl('\ufeffpdf')).toMatch(/^a zero-width character/);
    expect(invisibleOrControl('pdf\u202etools')).toMatch(/^a bidirectional control character \(U\+202E\)/);
    expect(invisibleOrControl('pdf\u2066')).toMatch(/^a bidirectional control character/);
    expect(invisibleOrControl('a\tb')).toMatch(/^a control character \(U\+0009\)/);
    expect(invisibleOrControl('a\u0000b')).toMatch(/^a control character \(U\+0000\)/);
    expect(invisibleOrControl('a\u00adb')).toMatch(/^an invisible formatting character \(U\+00AD\)/);
    expect(invisibleOrControl('a\ufe0f')).toMatch(/^a variation selector/);
    expect(invisibleOrControl('a\u{e0041}')).toMatch(/^an invisible formatting character \(U\+E0041\)/);
  });

  it('counts positions in characters, not UTF-16 units', () => {
    expect(invisibleOrControl('😀\u200b')).toBe('a zero-width character (U+200B) at character 2');
  });
});
