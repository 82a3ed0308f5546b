import { cleanup, render } from 'ink-testing-library';
import { afterEach, expect, it } from 'vitest';
import { HelpText } from '../../../repl/components/help-text.js';
import { screen } from '../ink-driver.js';

afterEach(() => cleanup());

it('HelpText lists the commands, Ctrl-C, the history keys and the plan keys', () => {
  const lines = screen(render(<HelpText />)).split('\n');
  expect(lines).toEqual([
    'Commands',
    '  /help  show this help',
    '  /new   start a new session (the agent forgets this conversation)',
    '  /exit  quit (Ctrl-C at the prompt does the same)',
    'Keys',
    '  Ctrl-C   cancel the running request; at the prompt, quit',
    '  Ctrl-T   show the trace of the last turn (from the traces framework-cli up keeps)',
    '  ↑ / ↓    walk through the messages sent',
    '  On a plan with an empty line: a approve · r reject · m modify · Enter to type a reply',
    'Anything else you type is sent to the agent; a reply like "yes, go ahead" also approves a plan.',
  ]);
});
