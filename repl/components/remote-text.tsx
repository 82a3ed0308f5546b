import { Text, type TextProps } from 'ink';
import { Fragment } from 'react';
import { terminalSegments } from '../../runtime/core/terminal-text.js';

/**
 * Text that came from elsewhere (an agent, a model, a tool call, an error of
 * another service), drawn so that the terminal interprets none of it: every
 * control character, escape sequence start, bidi control or invisible format
 * character is shown as its escape (`\x1b`, `\u202e`) in reverse video, so
 * the person sees that something was there and cannot take it for text.
 * `singleLine` shows line feeds as `\n` too. Other props style the whole text.
 *
 * @example
 * <RemoteText text={event.text} dimColor />
 */
export function RemoteText({ text, singleLine = false, ...style }: { text: string; singleLine?: boolean } & Omit<TextProps, 'children'>) {
  const segments = terminalSegments(text, { singleLine });
  return (
    <Text {...style}>
      {segments.map((segment, i) =>
        segment.escaped ? (
          <Text key={i} inverse>
            {segment.text}
          </Text>
        ) : (
          <Fragment key={i}>{segment.text}</Fragment>
        ),
      )}
    </Text>
  );
}
