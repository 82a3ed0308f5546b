import { describe, expect, it } from 'vitest';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import { camelCase, pascalCase, validateAgentName, validateProjectName, validateTaskName } from '../../runtime/scaffold/scaffold-names.js';

function refusal(fn: () => unknown): FrameworkError {
  try {
    fn();
  } catch (error) {
    if (FrameworkError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('scaffold names', () => {
  it('accepts lower-case names', () => {
    expect(validateProjectName({ name: 'demo' })).toBe('demo');
    expect(validateProjectName({ name: 'my-app.v2' })).toBe('my-app.v2');
    expect(validateAgentName({ name: 'planner_2' })).toBe('planner_2');
    expect(validateTaskName({ name: 'sum-up' })).toBe('sum-up');
  });

  it.each([
    ['', /empty/],
    ['.', /plain name/],
    ['..', /plain name/],
    ['a/b', /path separator/],
    ['a\\b', /path separator/],
    ['Demo', /lower-case.*for example "demo"/],
    ['-x', /starting with a letter or digit/],
  ])('refuses the project name %j and says how to fix it', (name, message) => {
    const error = refusal(() => validateProjectName({ name }));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(message);
  });

  it('refuses agent names that are not identifiers-to-be', () => {
    expect(refusal(() => validateAgentName({ name: '1st' })).message).toMatch(/starting with a letter/);
    expect(refusal(() => validateAgentName({ name: 'My Agent' })).message).toMatch(/for example "my-agent"/);
    expect(refusal(() => validateAgentName({ name: '../x' })).message).toMatch(/path separator/);
  });

  it('reserves route_to_task for the router', () => {
    expect(refusal(() => validateTaskName({ name: 'route_to_task' })).message).toMatch(/reserved/);
  });

  it('turns names into code names', () => {
    expect(camelCase('sum-up_now')).toBe('sumUpNow');
    expect(pascalCase('web-helper')).toBe('WebHelper');
  });
});
