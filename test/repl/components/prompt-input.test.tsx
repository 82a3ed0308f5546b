import { cleanup, render } from 'ink-testing-library';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PromptInput } from '../../../repl/components/prompt-input.js';
import { useHistory } from '../../../repl/hooks/use-history.js';
import { KEY, press, screen, settle, submitLine, waitForText } from '../ink-driver.js';

afterEach(() => cleanup());

/** A prompt whose submitted lines go to the history and to `sent`. */
function Prompt({ sent }: { sent: string[] }) {
  const history = useHistory();
  const [value, setValue] = useState('');
  return (
    <PromptInput
      value={value}
      onChange={setValue}
      history={history}
      placeholder="Type a message"
      onSubmit={(line) => {
        history.push(line);
        sent.push(line);
        setValue('');
      }}
    />
  );
}

/** The prompt line: the marker and what is typed (the cursor is a trailing space). */
const promptLine = (app: ReturnType<typeof render>) => screen(app).trimEnd();

describe('PromptInput with useHistory', () => {
  it('shows the marker and the placeholder', () => {
    expect(promptLine(render(<Prompt sent={[]} />))).toBe('› Type a message');
  });

  it('walks up and down through the sent lines and keeps the draft', async () => {
    const sent: string[] = [];
    const app = render(<Prompt sent={sent} />);
    await submitLine(app, 'first');
    await submitLine(app, 'second');
    await submitLine(app, 'second');
    await waitForText(app, '› Type a message');
    expect(sent).toEqual(['first', 'second', 'second']);

    await press(app, 'my draft');
    await waitForText(app, '› my draft');
    await press(app, KEY.up);
    await waitForText(app, '› second');
    // A line sent twice in a row is remembered once.
    await press(app, KEY.up);
    await waitForText(app, '› first');
    await press(app, KEY.up);
    await settle();
    expect(promptLine(app)).toBe('› first');
    await press(app, KEY.down);
    await waitForText(app, '› second');
    await press(app, KEY.down);
    await waitForText(app, '› my draft');
    await press(app, KEY.down);
    await settle();
    expect(promptLine(app)).toBe('› my draft');
  });

  it('puts the cursor at the end of a recalled line, so typing goes on from there', async () => {
    const sent: string[] = [];
    const app = render(<Prompt sent={sent} />);
    await submitLine(app, 'book flights');
    await press(app, KEY.up);
    await waitForText(app, '› book flights');
    await press(app, '; reserve hotel');
    await waitForText(app, '› book flights; reserve hotel');
    await press(app, KEY.enter);
    await waitForText(app, '› Type a message');
    expect(sent).toEqual(['book flights', 'book flights; reserve hotel']);
  });

  it('submits the typed line when Enter comes before the app re-rendered', async () => {
    const sent: string[] = [];
    const app = render(<Prompt sent={sent} />);
    await settle();
    app.stdin.write('book flights');
    app.stdin.write(KEY.enter);
    await settle();
    expect(sent).toEqual(['book flights']);
    expect(promptLine(app)).toBe('› Type a message');
  });

  it('submits the text before a line break that came in the same read, and keeps what follows as the draft', async () => {
    const sent: string[] = [];
    const app = render(<Prompt sent={sent} />);
    await press(app, 'book flights\r');
    await vi.waitFor(() => expect(sent).toEqual(['book flights']));
    await press(app, 'first line\nsecond line\nrest');
    await waitForText(app, '› rest');
    expect(sent).toEqual(['book flights', 'first line\nsecond line']);
  });

  it('does nothing on the arrows while there is no history', async () => {
    const app = render(<Prompt sent={[]} />);
    await press(app, 'abc');
    await waitForText(app, '› abc');
    await press(app, KEY.up);
    await press(app, KEY.down);
    await press(app, '!');
    await waitForText(app, '› abc!');
  });
});
