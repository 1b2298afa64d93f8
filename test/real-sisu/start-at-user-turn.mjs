/**
 * An app-side step after SISU's conversationBuffer, for Anthropic: the buffer's
 * window can start with an assistant message (or a tool result whose call was
 * cut off), which Anthropic refuses. This drops the leading messages up to the
 * first user message. Plain JavaScript, so the in-process tests and the
 * resumed-conversation child process (which runs the built package) share it.
 */
export async function startAtUserTurn(ctx, next) {
  const first = ctx.messages.findIndex((m) => m.role !== 'system');
  let user = first;
  while (user >= 0 && user < ctx.messages.length && ctx.messages[user]?.role !== 'user') user++;
  if (first >= 0 && user > first && user < ctx.messages.length)
    ctx.messages = [...ctx.messages.slice(0, first), ...ctx.messages.slice(user)];
  await next();
}
