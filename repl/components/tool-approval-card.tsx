import { Box, Text } from 'ink';
import { toolApprovalOf, type ToolApprovalRequest } from '../chat-event.js';
import { canonicalJson } from '../tool-call-text.js';
import { RemoteText } from './remote-text.js';

/** The keys a tool call waiting for approval takes, as the card shows them. */
export const TOOL_KEY_LEGEND = 'a approve · r reject · Enter to type a reply';

/**
 * A tool call waiting for a person, in a bordered box: the tool, its
 * arguments, why it needs approval, and while it waits the keys that decide
 * it. When the agent sent no structured call, the box holds its text.
 *
 * The tool and its arguments are shown exactly: the name on one line, the
 * arguments as canonical JSON (keys sorted), every character that a terminal
 * would interpret or hide shown as a highlighted escape, long values wrapped
 * and never cut. What the person approves is what they read.
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
            <Text bold>Tool:</Text> <RemoteText text={card.tool} singleLine />
          </Text>
          <Text bold>Arguments:</Text>
          <RemoteText text={canonicalJson(card.arguments, 2)} />
          {card.reasons.length ? (
            <Text>
              <Text bold>Why:</Text> <RemoteText text={card.reasons.join('; ')} singleLine />
            </Text>
          ) : null}
        </>
      ) : (
        <RemoteText text={event.text} />
      )}
      {pending ? (
        <Box marginTop={1}>
          <Text color="yellow">{TOOL_KEY_LEGEND}</Text>
        </Box>
      ) : null}
    </Box>
  );
}
