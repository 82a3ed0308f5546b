import { z } from 'zod';
import { AgentResponse } from '../core/agent-response.js';

const TextPayloadSchema = z.object({ text: z.string() });
const StatusPayloadSchema = z.object({ text: z.string(), data: z.record(z.string(), z.unknown()).optional() });
const InputRequiredPayloadSchema = z.object({
  text: z.string(),
  action_type: z.string().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});
const ErrorPayloadSchema = z.object({ code: z.string(), message: z.string() });
const ResultPayloadSchema = z.record(z.string(), z.unknown());
/** The minimal front door's unnamed events: `data: {"message": <chunk>}`. */
const MinimalPayloadSchema = z.object({ message: z.string() });

/** One received SSE event: its `event:` name (`message` when it had none) and its data. */
export interface ReceivedSseEvent {
  event: string;
  data: string;
}

function parseJson(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

/** A text payload in either event format: `{"text": ...}` (json) or the text itself (text). */
function textOf(data: string): string {
  if (data.startsWith('{')) {
    const parsed = TextPayloadSchema.safeParse(parseJson(data));
    if (parsed.success) return parsed.data.text;
  }
  return data;
}

/**
 * Turns one event of an agent's front door back into the response the task
 * yielded. Both event formats are understood (`text`, the spec's, and `json`,
 * which adds `action_type` and structured `data` to `input_required`), and so
 * is the minimal front door's `{message}` form. Events this client does not
 * know (a newer server) give `undefined`; a malformed `result` or `error`
 * payload becomes an `error` response naming the problem, never a throw.
 *
 * @example
 * parseFrontDoorEvent({ event: 'status', data: 'Planning...' }); // { type: 'status', text: 'Planning...' }
 */
export function parseFrontDoorEvent(received: ReceivedSseEvent): AgentResponse | undefined {
  const { event, data } = received;
  switch (event) {
    case 'status': {
      const parsed = data.startsWith('{') ? StatusPayloadSchema.safeParse(parseJson(data)) : undefined;
      if (!parsed?.success) return AgentResponse.status(data);
      return AgentResponse.status(parsed.data.text, parsed.data.data === undefined ? {} : { data: parsed.data.data });
    }
    case 'text':
      return AgentResponse.text(textOf(data));
    case 'input_required': {
      const parsed = data.startsWith('{') ? InputRequiredPayloadSchema.safeParse(parseJson(data)) : undefined;
      if (!parsed?.success) return AgentResponse.inputRequired(data);
      const { text, action_type: actionType, data: structured } = parsed.data;
      return AgentResponse.inputRequired(text, {
        ...(actionType === undefined ? {} : { actionType }),
        ...(structured === undefined ? {} : { data: structured }),
      });
    }
    case 'result': {
      const parsed = ResultPayloadSchema.safeParse(parseJson(data));
      return parsed.success
        ? AgentResponse.result(parsed.data)
        : AgentResponse.error(`The agent sent a result that is not a JSON object: ${preview(data)}`, { code: 'invalid_event' });
    }
    case 'error': {
      const parsed = ErrorPayloadSchema.safeParse(parseJson(data));
      return parsed.success
        ? AgentResponse.error(parsed.data.message, { code: parsed.data.code })
        : AgentResponse.error(data === '' ? 'The agent reported an error without details.' : data, { code: 'agent_error' });
    }
    case 'message': {
      const parsed = MinimalPayloadSchema.safeParse(parseJson(data));
      return AgentResponse.text(parsed.success ? parsed.data.message : data);
    }
    default:
      return undefined;
  }
}

function preview(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
