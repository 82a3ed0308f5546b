import { describe, expect, it } from 'vitest';
import { checkedTools } from '../../runtime/model/tool-arguments-check.js';
import { argumentsValue, functionsOf, toolChatHistory } from '../../runtime/model/tool-calling.js';

const [weather, time] = checkedTools([
  {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 3 } } },
  },
  { name: 'get_time' },
]) as [ReturnType<typeof checkedTools>[number], ReturnType<typeof checkedTools>[number]];

describe('functionsOf', () => {
  it('offers every tool for auto and required, the named one only, and none for none', () => {
    expect(Object.keys(functionsOf([weather, time], 'auto')!)).toEqual(['get_weather', 'get_time']);
    expect(Object.keys(functionsOf([weather, time], 'required')!)).toEqual(['get_weather', 'get_time']);
    expect(functionsOf([weather, time], { name: 'get_time' })).toEqual({ get_time: {} });
    expect(functionsOf([weather, time], 'none')).toBeUndefined();
    // Generation gets the grammar schema; the prompt describes the integer range as a range.
    expect(functionsOf([weather], 'auto')).toEqual({
      get_weather: { description: 'Weather of a city', params: { type: 'object', properties: { city: { type: 'string' }, days: { enum: [1, 2, 3] } } } },
    });
    expect(functionsOf([weather], 'auto', 'documented')!.get_weather!.params).toEqual({
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', description: 'an integer from 1 to 3' } },
    });
  });
});

describe('toolChatHistory', () => {
  it('puts tool results into the calls they answer, by id, then name, then order, and continues that response', () => {
    const { history, continues } = toolChatHistory([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather and time?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'a', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'b', name: 'get_time', arguments: {} },
        ],
      },
      { role: 'tool', content: '"12:00"', toolCallId: 'b' },
      { role: 'tool', content: 'sunny' },
    ]);
    expect(continues).toBe(true);
    expect(history).toEqual([
      { type: 'system', text: 'Be brief.' },
      { type: 'user', text: 'Weather and time?' },
      {
        type: 'model',
        response: [
          { type: 'functionCall', name: 'get_weather', params: { city: 'Paris' }, result: 'sunny' },
          { type: 'functionCall', name: 'get_time', params: {}, result: '12:00' },
        ],
      },
    ]);
  });

  it('matches by tool_name, and gives a result that answers no call as a user message', () => {
    const { history, continues } = toolChatHistory([
      { role: 'user', content: 'Hi' },
      {
        role: 'assistant',
        content: 'Let me look.',
        toolCalls: [
          { name: 'get_time', arguments: {} },
          { name: 'get_weather', arguments: {} },
        ],
      },
      { role: 'tool', content: '{"sky":"grey"}', toolName: 'get_weather' },
      { role: 'user', content: 'And?' },
      { role: 'tool', content: 'late', toolName: 'get_time' },
    ]);
    expect(continues).toBe(false);
    expect(history[1]).toEqual({
      type: 'model',
      response: [
        'Let me look.',
        { type: 'functionCall', name: 'get_time', params: {}, result: undefined },
        { type: 'functionCall', name: 'get_weather', params: {}, result: { sky: 'grey' } },
      ],
    });
    expect(history.slice(2)).toEqual([
      { type: 'user', text: 'And?' },
      { type: 'user', text: 'Result of get_time: late' },
    ]);
  });
});

describe('argumentsValue', () => {
  it('reads a JSON string and keeps an object', () => {
    expect(argumentsValue('{"city":"Paris"}')).toEqual({ city: 'Paris' });
    expect(argumentsValue({ city: 'Rome' })).toEqual({ city: 'Rome' });
  });
});
