import type { Span } from '@opentelemetry/api';
import { inSpan, SPAN_KIND, spanOverStream, tracingEnabled } from '../core/telemetry/tracing.js';
import type { ChatRequest, ChatResult, ChatStreamEvent, ChatUsage, LanguageModel } from './language-model.js';

/**
 * A model whose every call is a GenAI CLIENT span (`chat <model>`, with
 * `gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`,
 * `gen_ai.response.model`, finish reason and token usage, per the
 * OpenTelemetry GenAI conventions). Neither prompts nor replies are recorded.
 * With tracing off each call goes straight to `model`.
 */
export function tracedLanguageModel(model: LanguageModel): LanguageModel {
  const attributes = (request: ChatRequest) => ({
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': model.provider,
    'gen_ai.request.model': request.model,
    ...(request.temperature === undefined ? {} : { 'gen_ai.request.temperature': request.temperature }),
    ...(request.tools?.length ? { 'gen_ai.request.tool_count': request.tools.length } : {}),
  });
  const options = (request: ChatRequest) => ({ kind: SPAN_KIND.CLIENT, attributes: attributes(request) });
  const traced: LanguageModel = {
    provider: model.provider,
    baseUrl: model.baseUrl,
    chat: (request) =>
      tracingEnabled()
        ? inSpan(`chat ${request.model}`, options(request), async (span) => {
            const result: ChatResult = await model.chat(request);
            span.setAttribute('gen_ai.response.model', result.model);
            if (result.finishReason) span.setAttribute('gen_ai.response.finish_reasons', [result.finishReason]);
            if (result.toolCalls?.length) span.setAttribute('gen_ai.response.tool_call_count', result.toolCalls.length);
            recordUsage(span, result.usage);
            return result;
          })
        : model.chat(request),
    chatStream: (request) =>
      tracingEnabled() ? spanOverStream(`chat ${request.model}`, options(request), () => model.chatStream(request)) : model.chatStream(request),
  };
  const { chatEvents } = model;
  if (chatEvents) {
    traced.chatEvents = (request) =>
      tracingEnabled()
        ? spanOverStream(`chat ${request.model}`, options(request), (span) => recordingFinish(span, chatEvents.call(model, request)))
        : chatEvents.call(model, request);
  }
  return traced;
}

async function* recordingFinish(span: Span, events: AsyncIterable<ChatStreamEvent>): AsyncIterable<ChatStreamEvent> {
  for await (const event of events) {
    if (event.type === 'finish') {
      if (event.finishReason) span.setAttribute('gen_ai.response.finish_reasons', [event.finishReason]);
      recordUsage(span, event.usage);
    }
    yield event;
  }
}

function recordUsage(span: Span, usage: ChatUsage | undefined): void {
  if (usage?.promptTokens !== undefined) span.setAttribute('gen_ai.usage.input_tokens', usage.promptTokens);
  if (usage?.completionTokens !== undefined) span.setAttribute('gen_ai.usage.output_tokens', usage.completionTokens);
}
