/**
 * The catalog section's place in a conversation: its tags, and the first
 * system message it goes into (withCatalog), replacing the section this
 * package put there on an earlier run so a rerun never duplicates it. Pure:
 * a new message list, the input unchanged.
 */
import type { HostMessage } from '../base/host.js';

/** Opening and closing tags of the section; used to find it again on a rerun. */
export const CATALOG_OPEN = '<available_skills>';

export const CATALOG_CLOSE = '</available_skills>';

/**
 * Where this package's section is in `content`: from an opening tag that
 * starts a line to the first closing tag that ends one after it. Names and
 * descriptions are escaped (catalogText), so neither tag can come from a
 * skill and the closing tag found is the section's own.
 */
function sectionRange(content: string): { start: number; end: number } | undefined {
  let from = 0;
  for (;;) {
    const close = content.indexOf(`\n${CATALOG_CLOSE}`, from);
    if (close === -1) return undefined;
    const end = close + 1 + CATALOG_CLOSE.length;
    if (end === content.length || content[end] === '\n') {
      // The nearest opening line before it: text of the host's own above the section is kept.
      let start = content.lastIndexOf(`${CATALOG_OPEN}\n`, close);
      while (start > 0 && content[start - 1] !== '\n') start = content.lastIndexOf(`${CATALOG_OPEN}\n`, start - 1);
      if (start !== -1) return { start, end };
    }
    from = end;
  }
}

/**
 * Put `section` into the first system message (or a new one at the top),
 * replacing a section this package added earlier so reruns never duplicate it.
 * Returns a new message list; the input is not changed.
 */
export function withCatalog<M extends HostMessage>(messages: readonly M[], section: string): Array<M | HostMessage> {
  const index = messages.findIndex((m) => m.role === 'system');
  if (index === -1) return [{ role: 'system', content: section }, ...messages];
  const system = messages[index] as M;
  const content = typeof system.content === 'string' ? system.content : '';
  const range = sectionRange(content);
  let updated: string;
  if (range) {
    updated = content.slice(0, range.start) + section + content.slice(range.end);
  } else {
    updated = content.length > 0 ? `${content}\n\n${section}` : section;
  }
  const copy = [...messages] as Array<M | HostMessage>;
  copy[index] = { ...system, content: updated };
  return copy;
}
