/**
 * The text of a host message: a string, or the text parts of a multi-part
 * content array, and a tool result's text as the model saw it. Pure
 * functions over message content, for every layer that reads the
 * conversation (the run, and the tools that read their own answers back).
 */

/** The text of a message: a string, or the text parts of a multi-part content array. */
export function messageText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === 'string') texts.push(part);
    else if (typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string') {
      texts.push((part as { text: string }).text);
    }
  }
  return texts.length > 0 ? texts.join('\n') : undefined;
}

/**
 * A tool message's text as the model saw it. SISU stores a tool result as
 * `JSON.stringify(result)`, so a string result arrives quoted and escaped.
 */
export function toolResultText(content: unknown): string | undefined {
  const text = messageText(content);
  if (text === undefined || !text.startsWith('"')) return text;
  try {
    const decoded: unknown = JSON.parse(text);
    return typeof decoded === 'string' ? decoded : text;
  } catch {
    return text;
  }
}
