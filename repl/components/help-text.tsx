import { Box, Text } from 'ink';
import { CHAT_COMMANDS } from '../chat-command.js';
import { PLAN_KEY_LEGEND } from './plan-card.js';

/**
 * What /help shows: the commands, what Ctrl-C does, the plan keys and the history keys.
 *
 * @example
 * <HelpText />
 */
export function HelpText() {
  return (
    <Box flexDirection="column">
      <Text bold>Commands</Text>
      {CHAT_COMMANDS.map((command) => (
        <Text key={command.name}>
          {'  '}
          <Text color="magenta">{command.name.padEnd(7)}</Text>
          {command.description}
        </Text>
      ))}
      <Text bold>Keys</Text>
      <Text>{'  Ctrl-C   cancel the running request; at the prompt, quit'}</Text>
      <Text>{'  Ctrl-T   show the trace of the last turn (from the traces framework-cli up keeps)'}</Text>
      <Text>{'  ↑ / ↓    walk through the messages sent'}</Text>
      <Text>
        {'  '}On a plan with an empty line: {PLAN_KEY_LEGEND}
      </Text>
      <Text dimColor>Anything else you type is sent to the agent; a reply like "yes, go ahead" also approves a plan.</Text>
    </Box>
  );
}
