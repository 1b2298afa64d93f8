import { describe, expect, it } from 'vitest';
import {
  argumentHint,
  codeSegments,
  declaredArgumentNames,
  splitArguments,
  substitutePlaceholders,
  substitutesInCode,
} from '../src/base/arguments.js';
import { leadingMention } from '../src/run/activation.js';
import { isUserInvocable } from '../src/metadata/invocation.js';

const fill = (text: string, args: string | undefined, metadata: Record<string, unknown> = {}, pluginRoot?: string) =>
  substitutePlaceholders(text, { arguments: args, skillDir: '/skills/deploy', pluginRoot, metadata });

describe('splitArguments (shell-style, as Claude Code splits $N)', () => {
  it('splits on whitespace; quotes group and are removed; escapes keep the next character', () => {
    expect(splitArguments('eu-west  --dry-run')).toEqual(['eu-west', '--dry-run']);
    expect(splitArguments(`"My Button" React 'Vue 3'`)).toEqual(['My Button', 'React', 'Vue 3']);
    expect(splitArguments('a\\ b "say \\"hi\\"" ""')).toEqual(['a b', 'say "hi"', '']);
    expect(splitArguments('  ')).toEqual([]);
    expect(splitArguments('"unclosed quote')).toEqual(['unclosed quote']);
  });
});

describe('substitutePlaceholders', () => {
  it('$ARGUMENTS is the arguments as given; $ARGUMENTS[N] and $N the N-th (0-based); a missing one stays as written', () => {
    const out = fill('Deploy to $ARGUMENTS.\nRegion $0, mode $ARGUMENTS[1], then $2.', 'eu-west "dry run"');
    expect(out.text).toBe('Deploy to eu-west "dry run".\nRegion eu-west, mode dry run, then $2.');
    expect(out).toMatchObject({ replaced: { prose: 3, code: 0 }, appended: false });
  });

  it('declared names stand for the arguments in order; undeclared $words are left alone', () => {
    const out = fill('Rename $old-name to $new-name in $HOME.', 'Foo Bar', { arguments: ['old-name', 'new-name'] });
    expect(out.text).toBe('Rename Foo to Bar in $HOME.');
    expect(declaredArgumentNames({ arguments: 'a b,c' })).toEqual(['a', 'b', 'c']);
    expect(declaredArgumentNames({ arguments: 5 })).toEqual([]);
  });

  it('amounts are not placeholders: $5M, $1,000, $1.50, $1-3M, 30%', () => {
    const text = 'Raise $5M at $1,000 a share, $1.50 each, $1-3M per hire, $2% fee.';
    expect(fill(text, 'x y z').text).toBe(`${text}\n\nARGUMENTS: x y z\n`);
  });

  it('arguments no placeholder used are appended, as Claude Code does; none given: nothing changes', () => {
    expect(fill('# Deploy\n\nShip it.\n', 'eu-west')).toMatchObject({
      text: '# Deploy\n\nShip it.\n\nARGUMENTS: eu-west\n',
      appended: true,
    });
    expect(fill('Deploy to $ARGUMENTS', undefined).text).toBe('Deploy to $ARGUMENTS');
    expect(fill('Deploy to $ARGUMENTS', '   ').text).toBe('Deploy to $ARGUMENTS');
  });

  it('never touches code without the opt-in: fenced blocks and inline spans keep $1, and unused arguments are appended', () => {
    const text = 'Use $0 here.\n\n```bash\nawk \'{print $1}\' "$ARGUMENTS"\n```\n\nAnd `echo $1` inline.\n';
    const out = fill(text, 'a b');
    expect(out.text).toBe('Use a here.\n\n```bash\nawk \'{print $1}\' "$ARGUMENTS"\n```\n\nAnd `echo $1` inline.\n');
    expect(out.replaced).toEqual({ prose: 1, code: 0 });
    // With argument-hint (or arguments) the skill says it was written for substitution: code too.
    const opted = fill(text, 'a b', { 'argument-hint': '[first] [second]' });
    expect(opted.text).toContain('awk \'{print b}\' "a b"');
    expect(opted.text).toContain('`echo b`');
    expect(opted.replaced).toEqual({ prose: 1, code: 3 });
    expect(fill('```\n$ARGUMENTS\n```\n', 'x').text).toBe('```\n$ARGUMENTS\n```\n\nARGUMENTS: x\n');
    // A file that ends inside a fence: it is closed first, so the arguments are not read as code.
    expect(fill('Run:\n~~~~\nmake $1\n', 'x').text).toBe('Run:\n~~~~\nmake $1\n~~~~\n\nARGUMENTS: x\n');
  });

  it('code segments: tildes, longer fences, an unclosed fence, double-backtick spans, a lone backtick', () => {
    expect(codeSegments('a\n~~~~\n$1\n~~~\nstill\n~~~~\nb')).toEqual([
      { code: false, text: 'a\n' },
      { code: true, text: '~~~~\n$1\n~~~\nstill\n~~~~\n' },
      { code: false, text: 'b' },
    ]);
    expect(codeSegments('x ``a ` b`` y ` z')).toEqual([
      { code: false, text: 'x ' },
      { code: true, text: '``a ` b``' },
      { code: false, text: ' y ` z' },
    ]);
    expect(codeSegments('```\nopen')).toEqual([{ code: true, text: '```\nopen' }]);
  });

  it('folder placeholders are filled in everywhere; ${CLAUDE_PLUGIN_ROOT} only when known', () => {
    const text = 'Run `${CLAUDE_SKILL_DIR}/scripts/go.sh` or ${SKILL_DIR}/x; hooks in ${CLAUDE_PLUGIN_ROOT}/hooks.';
    expect(fill(text, undefined).text).toBe(
      'Run `/skills/deploy/scripts/go.sh` or /skills/deploy/x; hooks in ${CLAUDE_PLUGIN_ROOT}/hooks.',
    );
    expect(fill(text, undefined, {}, '/plugins/ops').text).toContain('hooks in /plugins/ops/hooks.');
  });
});

describe('frontmatter fields about invocation', () => {
  it('argument-hint as written, a YAML list back in brackets; opt-in by arguments or argument-hint', () => {
    expect(argumentHint({ 'argument-hint': ' <region> ' })).toBe('<region>');
    expect(argumentHint({ 'argument-hint': ['issue-number'] })).toBe('[issue-number]');
    expect(argumentHint({ 'argument-hint': [{ optional: 'date' }] })).toBe('[{"optional":"date"}]');
    expect(argumentHint({ 'argument-hint': '' })).toBeUndefined();
    expect(argumentHint({})).toBeUndefined();
    expect(substitutesInCode({ arguments: 'a' })).toBe(true);
    expect(substitutesInCode({ 'argument-hint': 'x' })).toBe(true);
    expect(substitutesInCode({})).toBe(false);
  });

  it('user-invocable: false (boolean or string) keeps @ mentions out', () => {
    expect(isUserInvocable({})).toBe(true);
    expect(isUserInvocable({ 'user-invocable': false })).toBe(false);
    expect(isUserInvocable({ 'user-invocable': 'False ' })).toBe(false);
    expect(isUserInvocable({ 'user-invocable': true })).toBe(true);
  });

  it('leadingMention: the rest of a message that opens with a mention; mid-sentence mentions get none', () => {
    expect(leadingMention('@deploy-staging eu-west --dry-run')).toEqual({ name: 'deploy-staging', arguments: 'eu-west --dry-run' });
    expect(leadingMention('  @deploy\nline one\nline two ')).toEqual({ name: 'deploy', arguments: 'line one\nline two' });
    expect(leadingMention('please @deploy eu-west')).toBeUndefined();
    expect(leadingMention('@deploy')).toBeUndefined();
    expect(leadingMention('@deploy/x y')).toBeUndefined();
    expect(leadingMention('@scope.pkg y')).toBeUndefined();
  });
});
