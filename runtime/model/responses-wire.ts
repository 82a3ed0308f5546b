import { z } from 'zod';

/**
 * Request body of OpenAI's Responses API (`POST /v1/responses`) as Ollama
 * serves it: stateless, so `previous_response_id` and `conversation` are
 * refused with a 400 and nothing is stored. Fields no model here can honour
 * are refused rather than ignored; `null` means "not set".
 */

const notSupported = (what: string) => `${what} is not supported by this server`;

/** A content part of an input message; only text parts can be read by the models here. */
export const ResponsesContentPartSchema = z.looseObject({ type: z.string(), text: z.string().optional() });

/** One input item, checked by its `type` in `responsesInputItem`; a message may leave out `type`. */
export const ResponsesInputItemSchema = z.looseObject({ type: z.string().optional() });

export const ResponsesMessageItemSchema = z.object({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'system', 'developer', 'assistant']),
  content: z.union([z.string(), z.array(ResponsesContentPartSchema)]),
});

export const ResponsesFunctionCallItemSchema = z.object({
  type: z.literal('function_call'),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string().default('{}'),
});

export const ResponsesFunctionCallOutputItemSchema = z.object({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(ResponsesContentPartSchema)]),
});

/** A function tool; the Responses API puts `name` and `parameters` on the tool itself. */
export const ResponsesToolSchema = z.object({
  type: z.literal('function', { error: "only tools of type 'function' are supported: this server runs no hosted tools" }),
  name: z.string().min(1, 'a tool needs a name'),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  strict: z.boolean().optional(),
});

export const ResponsesToolChoiceSchema = z.union([z.enum(['auto', 'none', 'required']), z.object({ type: z.literal('function'), name: z.string().min(1) })]);

export const ResponsesTextFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    name: z.string().optional(),
    description: z.string().optional(),
    schema: z.record(z.string(), z.unknown()),
    strict: z.boolean().optional(),
  }),
]);

/** `POST /v1/responses` body. */
export const ResponsesRequestSchema = z.object({
  model: z.string().min(1, 'model is required'),
  input: z.union([z.string(), z.array(ResponsesInputItemSchema)]),
  instructions: z.string().optional(),
  tools: z.array(ResponsesToolSchema).optional(),
  tool_choice: ResponsesToolChoiceSchema.optional(),
  text: z.object({ format: ResponsesTextFormatSchema.optional(), verbosity: z.string().optional() }).optional(),
  max_output_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  stream: z.boolean().default(false),
  // Accepted: calls come one after another in the reply, and nothing is stored either way.
  parallel_tool_calls: z.boolean().optional(),
  store: z.boolean().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  user: z.string().optional(),
  truncation: z.enum(['auto', 'disabled']).optional(),
  include: z.array(z.string()).optional(),
  service_tier: z.string().optional(),
  safety_identifier: z.string().optional(),
  prompt_cache_key: z.string().optional(),
  stream_options: z.looseObject({}).optional(),
  // No model here reasons: only an effort of none (or minimal) can be honoured.
  reasoning: z
    .looseObject({ effort: z.enum(['none', 'minimal'], { error: `reasoning effort other than none: ${notSupported('reasoning')}` }).optional() })
    .optional(),
  previous_response_id: z
    .string()
    .max(0, {
      error: `previous_response_id: ${notSupported('previous_response_id')}, which is stateless as Ollama's: send the whole conversation in input`,
    })
    .optional(),
  conversation: z.undefined({ error: `${notSupported('conversation')}, which is stateless: send the whole conversation in input` }).optional(),
  background: z.literal(false, { error: notSupported('background') }).optional(),
  prompt: z.undefined({ error: `${notSupported('prompt')} (stored prompts)` }).optional(),
  top_logprobs: z.literal(0, { error: notSupported('top_logprobs') }).optional(),
  max_tool_calls: z.number().int().positive().optional(),
});
export type ResponsesRequest = z.infer<typeof ResponsesRequestSchema>;
