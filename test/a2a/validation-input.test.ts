import { describe, expect, it } from 'vitest';
import { A2AValidationInputSchema, buildValidationInput, MESSAGE_PREVIEW_CHARS } from '../../runtime/a2a/validation-input.js';

const agent = (name: string) => ({ name, description: `${name} agent`, url: `http://127.0.0.1:1/${name}` });
const build = (message: string) => buildValidationInput({ source: agent('planner'), target: agent('executor'), message, mode: 'strict', now: new Date(0) });

describe('buildValidationInput', () => {
  it('gives the policy the whole of a short message and its length', () => {
    const input = build('Book the room');
    expect(input.communication).toEqual({ timestamp: '1970-01-01T00:00:00.000Z', message_preview: 'Book the room', message_length: 13 });
    expect(A2AValidationInputSchema.parse(input)).toEqual(input);
  });

  it('cuts the preview at 200 characters and counts them all', () => {
    const input = build('a'.repeat(450));
    expect(input.communication.message_preview).toBe('a'.repeat(MESSAGE_PREVIEW_CHARS));
    expect(input.communication.message_length).toBe(450);
  });

  it('counts code points, never splitting a surrogate pair', () => {
    // 199 letters then emoji (two UTF-16 units each): the 200th character is a whole emoji.
    const message = `${'a'.repeat(199)}${'😀'.repeat(3)}`;
    const input = build(message);
    expect(input.communication.message_preview).toBe(`${'a'.repeat(199)}😀`);
    expect(input.communication.message_length).toBe(202);
    expect(build('😀😀').communication).toMatchObject({ message_preview: '😀😀', message_length: 2 });
  });
});
