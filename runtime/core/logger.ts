import type { LogLevel } from './config.js';
import { activeTraceIds } from './telemetry/tracing.js';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * A small structured logger: one JSON line per entry on stderr (stdout stays
 * free for program output such as `--json`). A line written within a span
 * carries its `trace_id` and `span_id`.
 */
export function createLogger(options: { name: string; level?: LogLevel; write?: (line: string) => void }): Logger {
  const threshold = RANK[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const log = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (RANK[level] < threshold) return;
    write(JSON.stringify({ time: new Date().toISOString(), level, name: options.name, message, ...activeTraceIds(), ...fields }));
  };
  return {
    debug: (m, f) => log('debug', m, f),
    info: (m, f) => log('info', m, f),
    warn: (m, f) => log('warn', m, f),
    error: (m, f) => log('error', m, f),
  };
}

/** A logger that drops everything (the default of library calls). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** Error fields for a log line, with the stack (logs may have it; clients never do). */
export function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { error: error.message, code: (error as { code?: unknown }).code, stack: error.stack };
  return { error: String(error) };
}
