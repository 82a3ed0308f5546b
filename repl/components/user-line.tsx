import { Text } from 'ink';

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
      <Text bold>{text}</Text>
    </Text>
  );
}
