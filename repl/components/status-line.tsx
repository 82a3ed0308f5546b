import { Box, Text } from 'ink';
import Spinner from 'ink-spinner';
import { RemoteText } from './remote-text.js';

/**
 * A status of the agent ("Planning...", "Step 1/3: ..."): with a spinner while
 * it is the latest news of a running request, a plain dim line afterwards.
 *
 * @example
 * <StatusLine text="Planning..." running />
 */
export function StatusLine({ text, running = false }: { text: string; running?: boolean }) {
  if (!running)
    return (
      <Text dimColor>
        • <RemoteText text={text} singleLine />
      </Text>
    );
  return (
    <Box>
      <Text color="cyan">
        <Spinner type="dots" />
      </Text>
      <Text>
        {' '}
        <RemoteText text={text} singleLine />
      </Text>
    </Box>
  );
}
