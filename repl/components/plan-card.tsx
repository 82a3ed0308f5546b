import { Box, Text } from 'ink';
import { planCardOf, type PlanConfirmation } from '../chat-event.js';

/** The keys a pending plan takes, as the card shows them. */
export const PLAN_KEY_LEGEND = 'a approve · r reject · m modify · Enter to type a reply';

/**
 * A plan waiting for a decision, in a bordered box: the objective, the
 * methodology (and why), the numbered tasks, and while it is pending the keys
 * that decide it. When the agent sent no structured plan, the box holds its text.
 *
 * @example
 * <PlanCard event={planEvent} pending />
 */
export function PlanCard({ event, pending = false }: { event: PlanConfirmation; pending?: boolean }) {
  const card = planCardOf(event);
  return (
    <Box flexDirection="column" alignSelf="flex-start" borderStyle="round" borderColor={pending ? 'cyan' : 'gray'} paddingX={1}>
      {card ? (
        <>
          <Text bold>Proposed plan</Text>
          <Text>
            <Text bold>Objective:</Text> {card.plan.objective}
          </Text>
          <Text>
            <Text bold>Methodology:</Text> {card.plan.methodology}
          </Text>
          {card.plan.methodology_rationale ? <Text dimColor>{card.plan.methodology_rationale}</Text> : null}
          <Text bold>Tasks:</Text>
          {card.plan.tasks.map((task, i) => (
            <Text key={task.task_id ?? i}>
              {'  '}
              {i + 1}. {task.description}
            </Text>
          ))}
        </>
      ) : (
        <Text>{event.text}</Text>
      )}
      {pending ? (
        <Box marginTop={1}>
          <Text color="cyan">{PLAN_KEY_LEGEND}</Text>
        </Box>
      ) : null}
    </Box>
  );
}
