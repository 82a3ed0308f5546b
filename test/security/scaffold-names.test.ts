import { describe, expect, it } from 'vitest';
import { validateAgentName } from '../../runtime/scaffold/scaffold-names.js';

// Attack: agent names the TypeScript build silently skips produced an agent
// that was never compiled. They are refused with the reason.

describe('agent names the build would skip', () => {
  it('refuses node_modules and names starting with a dot, saying why', () => {
    expect(() => validateAgentName({ name: 'node_modules' })).toThrow(/build skips/);
    for (const name of ['.hidden', '.', '..', '.node_modules']) expect(() => validateAgentName({ name })).toThrow();
    expect(validateAgentName({ name: 'node-modules-helper' })).toBe('node-modules-helper');
  });
});
