import { Text } from 'ink';
import { RemoteText } from './remote-text.js';

/** The marker in front of what the user typed, at the prompt and in the transcript. */
export const PROMPT_MARKER = '›';

/**
 * What the user sent, echoed in the transcript.
 *
 * @example
 * <UserLine text="book flights; reserve hotel" />
 */
export function UserLine({ text }: { text: string }) {
  return (
    <Text>
      <Text color="magenta" bold>
        {PROMPT_MARKER}
      </Text>{' '}
      <RemoteText bold text={text} />
    </Text>
  );
}
