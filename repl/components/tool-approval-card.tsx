import { Box, Text } from 'ink';
import { toolApprovalOf, type ToolApprovalRequest } from '../chat-event.js';

/** The keys a tool call waiting for approval takes, as the card shows them. */
export const TOOL_KEY_LEGEND = 'a approve · r reject · Enter to type a reply';

function argumentsText(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * A tool call waiting for a person, in a bordered box: the tool, its
 * arguments, why it needs approval, and while it waits the keys that decide
 * it. When the agent sent no structured call, the box holds its text.
 *
 * @example
 * <ToolApprovalCard event={approvalEvent} pending />
 */
export function ToolApprovalCard({ event, pending = false }: { event: ToolApprovalRequest; pending?: boolean }) {
  const card = toolApprovalOf(event);
  return (
    <Box flexDirection="column" alignSelf="flex-start" borderStyle="round" borderColor={pending ? 'yellow' : 'gray'} paddingX={1}>
      {card ? (
        <>
          <Text bold>Approval needed</Text>
          <Text>
            <Text bold>Tool:</Text> {card.tool}
          </Text>
          <Text bold>Arguments:</Text>
          <Text>{argumentsText(card.arguments)}</Text>
          {card.reasons.length ? (
            <Text>
              <Text bold>Why:</Text> {card.reasons.join('; ')}
            </Text>
          ) : null}
        </>
      ) : (
        <Text>{event.text}</Text>
      )}
      {pending ? (
        <Box marginTop={1}>
          <Text color="yellow">{TOOL_KEY_LEGEND}</Text>
        </Box>
      ) : null}
    </Box>
  );
}
