/* global AbortController */
// A plain request ctx with the fields the middleware touches, for the bench
// and the stress scripts: they measure our code, so no host runtime stands in
// the way. The logger keeps nothing unless one is given.

const noop = () => {};

/** A logger that drops everything (logging is not what is measured); one per ctx, so a caller may replace a level. */
export const silentLogger = () => ({ debug: noop, info: noop, warn: noop, error: noop, span: noop });

/** A logger that keeps every call in `entries` (for figures read from the log, such as discovery time). */
export function recordingLogger() {
  const entries = [];
  const record =
    (level) =>
    (...args) => {
      entries.push({ level, args });
    };
  return { entries, debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error'), span: record('span') };
}

/** A fresh ctx holding copies of `messages`, a Map-backed tool registry, and `log`. */
export function plainContext(messages, log = silentLogger()) {
  const tools = new Map();
  return {
    messages: messages.map((m) => ({ ...m })),
    tools: { list: () => [...tools.values()], get: (name) => tools.get(name), register: (tool) => tools.set(tool.name, tool) },
    state: {},
    log,
    signal: new AbortController().signal,
  };
}

/** A ctx whose conversation is one user message. */
export const userContext = (content) => plainContext([{ role: 'user', content }]);
