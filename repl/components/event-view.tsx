import { assertNever } from '../../runtime/core/assert-never.js';
import { isPlanConfirmation, isToolApproval, type ChatEvent } from '../chat-event.js';
import { ErrorLine } from './error-line.js';
import { MessageText } from './message-text.js';
import { PlanCard } from './plan-card.js';
import { QuestionLine } from './question-line.js';
import { ResultBlock } from './result-block.js';
import { SessionLine } from './session-line.js';
import { StatusLine } from './status-line.js';
import { ToolApprovalCard } from './tool-approval-card.js';

/**
 * One chat event, drawn by the component of its kind. `live` marks the
 * latest event while it still matters: a status of a running request (with a
 * spinner), a plan still waiting for a decision (with its keys).
 *
 * @example
 * <EventView event={{ type: 'status', text: 'Planning...' }} live />
 */
export function EventView({ event, live = false }: { event: ChatEvent; live?: boolean }) {
  switch (event.type) {
    case 'status':
      return <StatusLine text={event.text} running={live} />;
    case 'text':
      return <MessageText text={event.text} />;
    case 'result':
      return <ResultBlock data={event.data} />;
    case 'input_required':
      if (isPlanConfirmation(event)) return <PlanCard event={event} pending={live} />;
      return isToolApproval(event) ? <ToolApprovalCard event={event} pending={live} /> : <QuestionLine text={event.text} />;
    case 'error':
      return <ErrorLine message={`${event.message} (${event.code})`} />;
    case 'session':
      return <SessionLine notice={event} />;
    default:
      return assertNever(event);
  }
}
