import { FrameworkError } from '../framework-error.js';

export interface ConfigIssue {
  /** The environment variable or option at fault, e.g. `AGENT_PORT`. */
  variable: string;
  message: string;
}

/** Configuration is missing or malformed; lists every bad variable at once. */
export class ConfigError extends FrameworkError {
  readonly issues: readonly ConfigIssue[];

  constructor(options: { issues: readonly ConfigIssue[]; context?: string }) {
    const lines = options.issues.map((issue) => `  - ${issue.variable}: ${issue.message}`);
    super({
      code: 'invalid_config',
      message: `${options.context ?? 'Invalid agent configuration'}:\n${lines.join('\n')}`,
    });
    this.issues = options.issues;
  }
}
