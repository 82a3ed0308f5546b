import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../runtime/core/errors/config-error.js';
import { FrameworkError } from '../../../runtime/core/framework-error.js';
import { KeyRing } from '../../../runtime/a2a/signing/key-ring.js';
import type { SigningKey } from '../../../runtime/a2a/signing/signing-key.js';

function plainKey(id: string, agent: string, fill: number): SigningKey {
  return { id, agent, secret: Buffer.alloc(32, fill) };
}

function configError(call: () => unknown): ConfigError {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect(FrameworkError.isInstance(error) && error.code).toBe('invalid_config');
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('KeyRing', () => {
  const ring = new KeyRing([plainKey('planner-1', 'planner', 1), plainKey('orch-1', 'orchestrator', 2), plainKey('orch-2', 'orchestrator', 3)]);

  it('finds keys by id and counts them', () => {
    expect(ring.size).toBe(3);
    expect(ring.get('planner-1')?.agent).toBe('planner');
    expect(ring.get('planner-1')?.secret).toEqual(Buffer.alloc(32, 1));
    expect(ring.get('nope')).toBeUndefined();
  });

  it('refuses two keys with one id', () => {
    expect(() => new KeyRing([plainKey('k', 'a', 1), plainKey('k', 'b', 2)])).toThrow(TypeError);
  });

  it('picks the only key of an agent, or the named one', () => {
    expect(ring.signingKeyFor('planner').id).toBe('planner-1');
    expect(ring.signingKeyFor('orchestrator', 'orch-2').id).toBe('orch-2');
  });

  it("names A2A_KEY_ID when the choice is ambiguous, missing or another agent's", () => {
    const ambiguous = configError(() => ring.signingKeyFor('orchestrator'));
    expect(ambiguous.message).toContain('A2A_KEY_ID');
    expect(ambiguous.message).toContain('orch-1, orch-2');
    expect(configError(() => ring.signingKeyFor('critic')).message).toMatch(/A2A_KEY_ID.*no key for the agent "critic"/);
    expect(configError(() => ring.signingKeyFor('planner', 'ghost')).message).toMatch(/A2A_KEY_ID.*"ghost".*not in the key ring/);
    // Holding the orchestrator's key id does not let the planner sign with it.
    expect(configError(() => ring.signingKeyFor('planner', 'orch-1')).message).toMatch(/A2A_KEY_ID.*belongs to the agent "orchestrator"/);
  });

  it('shows no secret in JSON, strings or inspect, even for keys given as plain objects', () => {
    const texts = [JSON.stringify(ring), String(ring), inspect(ring), inspect(ring, { showHidden: true, depth: 10 }), inspect(ring.get('orch-1'))];
    for (const text of texts) {
      expect(text).toContain('orch-1');
      for (const fill of [1, 2, 3]) {
        expect(text).not.toContain(Buffer.alloc(32, fill).toString('hex'));
        expect(text).not.toContain(Buffer.alloc(32, fill).toString('base64'));
      }
      expect(text).not.toMatch(/secret|<Buffer/);
    }
    expect(JSON.parse(JSON.stringify(ring))).toEqual({
      size: 3,
      keys: [
        { id: 'planner-1', agent: 'planner' },
        { id: 'orch-1', agent: 'orchestrator' },
        { id: 'orch-2', agent: 'orchestrator' },
      ],
      warnings: [],
    });
  });
});
