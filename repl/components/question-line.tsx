import { Box, Text } from 'ink';
import { RemoteText } from './remote-text.js';

/**
 * A question of the agent that is not a plan ("What would you like to change?"): the next line typed answers it.
 *
 * @example
 * <QuestionLine text="What would you like to change in the plan?" />
 */
export function QuestionLine({ text }: { text: string }) {
  return (
    <Box>
      <Text color="yellow" bold>
        ?{' '}
      </Text>
      <RemoteText color="yellow" text={text} />
    </Box>
  );
}
