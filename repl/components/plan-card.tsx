import { Box, Text } from 'ink';
import { planCardOf, type PlanConfirmation } from '../chat-event.js';
import { RemoteText } from './remote-text.js';

/** How an edited plan marks each kind of change: a sign before the step, a colour. */
const CHANGE_SIGNS = { added: '+', changed: '~', moved: '↕' } as const;
const CHANGE_COLORS = { added: 'green', changed: 'yellow', moved: 'blue' } as const;

/** The keys a pending plan takes, as the card shows them. */
export const PLAN_KEY_LEGEND = 'a approve · r reject · m modify · Enter to type a reply';

/**
 * A plan waiting for a decision, in a bordered box: the objective, the
 * methodology (and why), the numbered tasks, and while it is pending the keys
 * that decide it. A revised plan shows what changed: steps added (+), changed
 * (~) or moved (↕), and the steps removed, struck through. When the agent sent no structured plan, the box holds its text.
 *
 * @example
 * <PlanCard event={planEvent} pending />
 */
export function PlanCard({ event, pending = false }: { event: PlanConfirmation; pending?: boolean }) {
  const card = planCardOf(event);
  const revised = card !== undefined && (card.plan.removed !== undefined || card.previous_plan_id !== undefined);
  return (
    <Box flexDirection="column" alignSelf="flex-start" borderStyle="round" borderColor={pending ? 'cyan' : 'gray'} paddingX={1}>
      {card ? (
        <>
          <Text bold>{revised ? 'Revised plan' : 'Proposed plan'}</Text>
          <Text>
            <Text bold>Objective:</Text> <RemoteText text={card.plan.objective} singleLine />
            {card.plan.objective_changed ? <Text color="yellow"> (changed)</Text> : null}
          </Text>
          <Text>
            <Text bold>Methodology:</Text> <RemoteText text={card.plan.methodology} singleLine />
          </Text>
          {card.plan.methodology_rationale ? <RemoteText dimColor text={card.plan.methodology_rationale} singleLine /> : null}
          <Text bold>Tasks:</Text>
          {card.plan.tasks.map((task, i) => (
            <Text key={task.task_id ?? i}>
              {'  '}
              {task.change ? <Text color={CHANGE_COLORS[task.change]}>{CHANGE_SIGNS[task.change]}</Text> : revised ? ' ' : null}
              {i + 1}. <RemoteText text={task.description} singleLine />
              {task.change ? <Text color={CHANGE_COLORS[task.change]}> ({task.change})</Text> : null}
            </Text>
          ))}
          {card.plan.removed?.map((action, i) => (
            <Text key={`removed-${i}`} color="red">
              {'  '}- <RemoteText strikethrough text={action} singleLine /> (removed)
            </Text>
          ))}
        </>
      ) : (
        <RemoteText text={event.text} />
      )}
      {pending ? (
        <Box marginTop={1}>
          <Text color="cyan">{PLAN_KEY_LEGEND}</Text>
        </Box>
      ) : null}
    </Box>
  );
}
