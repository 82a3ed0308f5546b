import { z } from 'zod';
import { A2A_VALIDATION_MODES } from '../core/config.js';

/** How much of a message the policy sees (spec: "message_preview", truncated). */
export const MESSAGE_PREVIEW_CHARS = 200;

const AgentRefSchema = z.object({
  name: z.string({ error: 'must be a string' }).min(1, 'must not be empty'),
  description: z.string({ error: 'must be a string' }),
  url: z.string({ error: 'must be a string' }),
});

/** The spec's "A2A validation input": exactly what the policy engine is asked about. */
export const A2AValidationInputSchema = z.object({
  source_agent: AgentRefSchema,
  target_agent: AgentRefSchema,
  communication: z.object({
    timestamp: z.iso.datetime({ error: 'must be an ISO-8601 UTC timestamp such as 2026-01-01T00:00:00Z' }),
    message_preview: z.string({ error: 'must be a string' }),
    message_length: z.number({ error: 'must be a number' }).int('must be a whole number').nonnegative('must not be negative'),
  }),
  validation_mode: z.enum(A2A_VALIDATION_MODES, { error: `must be one of ${A2A_VALIDATION_MODES.join(', ')}` }),
});
export type A2AValidationInput = z.infer<typeof A2AValidationInputSchema>;

/** The identity fields of an agent card that policies see. */
export interface AgentRef {
  name: string;
  description: string;
  url: string;
}

/**
 * Builds the validation input for a message from `source` to `target`. The
 * preview is cut at 200 characters (whole code points); the length is the
 * full message's length in characters.
 */
export function buildValidationInput(options: {
  source: AgentRef;
  target: AgentRef;
  message: string;
  mode: A2AValidationInput['validation_mode'];
  now?: Date;
}): A2AValidationInput {
  const { preview, length } = previewOf(options.message);
  return {
    source_agent: { name: options.source.name, description: options.source.description, url: options.source.url },
    target_agent: { name: options.target.name, description: options.target.description, url: options.target.url },
    communication: {
      timestamp: (options.now ?? new Date()).toISOString(),
      message_preview: preview,
      message_length: length,
    },
    validation_mode: options.mode,
  };
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** The first 200 code points of `message` and its length in code points (UTF-16 units when it has no surrogate, the common case, without splitting it into an array). */
function previewOf(message: string): { preview: string; length: number } {
  if (!SURROGATE.test(message)) return { preview: message.slice(0, MESSAGE_PREVIEW_CHARS), length: message.length };
  const chars = Array.from(message);
  return { preview: chars.slice(0, MESSAGE_PREVIEW_CHARS).join(''), length: chars.length };
}
