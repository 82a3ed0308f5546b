import { Box, Text } from 'ink';
import { RemoteText } from './remote-text.js';

/**
 * A failure in red, with a dim line saying what to do when there is a hint:
 * an `error` event of the agent, or a transport failure as `describeChatError` puts it.
 *
 * @example
 * <ErrorLine message="Cannot reach the agent at http://127.0.0.1:8100 (connection refused)." hint="Is the agent running? ..." />
 */
export function ErrorLine({ message, hint }: { message: string; hint?: string }) {
  return (
    <Box flexDirection="column">
      <Text color="red">
        ✖ <RemoteText text={message} />
      </Text>
      {hint ? (
        <Box paddingLeft={2}>
          <RemoteText dimColor text={hint} />
        </Box>
      ) : null}
    </Box>
  );
}
