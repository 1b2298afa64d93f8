/**
 * A silent logger that keeps every call, for tests that assert on what was
 * logged. One copy for the plain stack (helpers/stack.ts) and the real SISU
 * (real-sisu/host.ts). A leaf: it imports nothing, so the real-SISU helpers
 * stay free of our package's own types.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'span';

export interface LogEntry {
  level: LogLevel;
  args: unknown[];
}

/**
 * Fits both loggers a test hands it to (ours and SISU's): a method taking
 * `...unknown[]` accepts any narrower call, `span(name, attrs)` included.
 */
export type RecordingLogger = Record<LogLevel, (...args: unknown[]) => void> & {
  readonly entries: LogEntry[];
  /** Entries whose first argument is `message`. */
  find(message: string): LogEntry[];
};

export function recordingLogger(): RecordingLogger {
  const entries: LogEntry[] = [];
  const record =
    (level: LogLevel) =>
    (...args: unknown[]): void => {
      entries.push({ level, args });
    };
  return {
    entries,
    find: (message) => entries.filter((entry) => entry.args[0] === message),
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    span: record('span'),
  };
}
