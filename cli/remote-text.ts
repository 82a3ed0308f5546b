import { reverseVideo, terminalText, type TerminalTextOptions } from '../runtime/core/terminal-text.js';

/**
 * Text from elsewhere (an agent, a model, a service's log, another service's
 * error) ready for `this.log`: what a terminal would interpret or hide shown
 * as a visible escape, in reverse video when standard output is a terminal
 * (and NO_COLOR is not set), plain when it is a pipe or a file.
 *
 * @example
 * this.log(`${remoteText(service, { singleLine: true })} | ${remoteText(line, { singleLine: true })}`);
 */
export function remoteText(text: string, options: TerminalTextOptions & { stream?: NodeJS.WriteStream } = {}): string {
  const stream = options.stream ?? process.stdout;
  const styled = stream.isTTY === true && (process.env.NO_COLOR ?? '') === '';
  return terminalText(text, { singleLine: options.singleLine ?? false, ...(styled ? { highlight: reverseVideo } : {}) });
}
