import { Box, Text, useInput } from 'ink';
import TextInput from 'ink-text-input';
import { useRef, useState } from 'react';
import type { HistoryNavigator } from '../hooks/use-history.js';
import { PROMPT_MARKER } from './user-line.js';

export interface PromptInputProps {
  value: string;
  /** Called with the new line as the user types. */
  onChange: (value: string) => void;
  /** Called with the line when Enter is pressed. */
  onSubmit: (value: string) => void;
  /** Walked with the up and down arrows. */
  history: HistoryNavigator;
  /** Called with a line recalled from the history; default `onChange`. */
  onRecall?: (value: string) => void;
  /** Shown before the line; default `›`. */
  marker?: string;
  placeholder?: string;
  focus?: boolean;
}

/**
 * The prompt: a marker and a text input; up and down arrows walk through the
 * history (the line being typed is kept as the draft).
 *
 * Keys that arrive faster than React re-renders reach ink-text-input's
 * handler of the previous render, which knows only the previous line: Enter
 * right after typing would submit what was there before. So Enter submits the
 * latest line this component saw, and a line break inside the input (text and
 * Enter in one read, or a pasted block) submits the text before it.
 *
 * @example
 * <PromptInput value={value} onChange={setValue} onSubmit={submit} history={history} />
 */
export function PromptInput({
  value,
  onChange,
  onSubmit,
  history,
  onRecall = onChange,
  marker = PROMPT_MARKER,
  placeholder = '',
  focus = true,
}: PromptInputProps) {
  // ink-text-input keeps its cursor when the value is replaced; a new key puts it at the end of a recalled line.
  const [recalls, setRecalls] = useState(0);
  // The latest line and handlers, for key handlers of an earlier render.
  const latest = useRef({ value, onChange, onSubmit, onRecall });
  latest.current = { value, onChange, onSubmit, onRecall };

  const change = (next: string) => {
    const lines = next.split(/\r\n|\r|\n/);
    const draft = lines.pop() ?? '';
    if (lines.length > 0) {
      latest.current.onSubmit(lines.join('\n'));
      latest.current.value = '';
    }
    if (draft !== latest.current.value) {
      latest.current.value = draft;
      latest.current.onChange(draft);
    }
  };
  const submit = () => latest.current.onSubmit(latest.current.value);

  useInput(
    (_input, key) => {
      if (!key.upArrow && !key.downArrow) return;
      const current = latest.current.value;
      const recalled = key.upArrow ? history.previous(current) : history.next(current);
      if (recalled === current) return;
      latest.current.value = recalled;
      setRecalls((n) => n + 1);
      latest.current.onRecall(recalled);
    },
    { isActive: focus },
  );
  return (
    <Box>
      <Text color="magenta" bold>
        {marker}{' '}
      </Text>
      <TextInput key={recalls} value={value} onChange={change} onSubmit={submit} placeholder={placeholder} focus={focus} />
    </Box>
  );
}
