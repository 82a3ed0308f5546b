import { Text } from 'ink';

/**
 * A text response of the agent, as written.
 *
 * @example
 * <MessageText text="The plan was cancelled." />
 */
export function MessageText({ text }: { text: string }) {
  return <Text>{text}</Text>;
}
