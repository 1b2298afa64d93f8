/** YAML the composer refuses (no published skill uses it), with what it says. */
import type { TokenKind } from './lexer.js';

export const UNSUPPORTED: Readonly<
  Record<Extract<TokenKind, 'anchor' | 'alias' | 'tag' | 'directive' | 'explicitKey' | 'docMarker'>, string>
> = {
  anchor: 'anchors are not supported',
  alias: 'aliases are not supported',
  tag: 'tags are not supported',
  directive: 'directives are not supported',
  explicitKey: 'explicit "? " keys are not supported',
  docMarker: 'a second YAML document inside the frontmatter is not supported',
};
