import { describe, expect, it } from 'vitest';
import type { ConfigError } from '../../runtime/core/errors/config-error.js';
import type { ServiceKind } from '../../runtime/supervisor/project-file.js';
import { startOrder } from '../../runtime/supervisor/start-order.js';

const svc = (name: string, kind: ServiceKind, dependsOn: string[] = []) => ({ name, kind, dependsOn });
const names = (services: Array<{ name: string }>) => services.map((s) => s.name);

describe('startOrder', () => {
  it('orders by kind when nothing depends on anything: model, policy, guardian, semantic-layer, memory, agents', () => {
    const order = startOrder({
      services: [
        svc('planner', 'agent'),
        svc('memory', 'memory'),
        svc('guardian', 'guardian'),
        svc('semantic-layer', 'semantic-layer'),
        svc('policy', 'policy'),
        svc('model', 'model'),
      ],
    });
    expect(names(order)).toEqual(['model', 'policy', 'guardian', 'semantic-layer', 'memory', 'planner']);
  });

  it('keeps the listed order within a kind and puts dependencies first, even against the kind order', () => {
    const order = startOrder({
      services: [
        svc('planner', 'agent', ['executor']),
        svc('executor', 'agent'),
        svc('web', 'agent', ['planner']),
        svc('policy', 'policy', ['model']),
        svc('model', 'model'),
      ],
    });
    expect(names(order)).toEqual(['model', 'policy', 'executor', 'planner', 'web']);
    const odd = startOrder({ services: [svc('policy', 'policy', ['helper']), svc('helper', 'agent')] });
    expect(names(odd)).toEqual(['helper', 'policy']);
  });

  it('names unknown dependencies with the known services', () => {
    let error: ConfigError | undefined;
    try {
      startOrder({ services: [svc('planner', 'agent', ['executor']), svc('policy', 'policy')] });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error?.code).toBe('invalid_config');
    expect(error?.message).toContain('services[planner].dependsOn');
    expect(error?.message).toContain('"executor" is not a service of this project (known: planner, policy)');
  });

  it('names the cycle', () => {
    expect(() => startOrder({ services: [svc('a', 'agent', ['c']), svc('b', 'agent', ['a']), svc('c', 'agent', ['b']), svc('policy', 'policy')] })).toThrow(
      /dependencies form a cycle: (a → c → b → a|b → a → c → b|c → b → a → c)/,
    );
    expect(() => startOrder({ services: [svc('a', 'agent', ['a'])] })).toThrow(/cannot depend on itself/);
  });

  it('refuses two services with one name', () => {
    expect(() => startOrder({ services: [svc('a', 'agent'), svc('a', 'policy')] })).toThrow(/the name is used by two services/);
  });
});
