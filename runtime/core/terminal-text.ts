/**
 * Remote text (an agent's statuses and answers, a model's words, tool names
 * and arguments, log lines, error messages of other services) made safe to
 * show in a terminal. A terminal interprets some characters instead of
 * showing them: ESC and CSI start sequences that write the clipboard (OSC 52),
 * set the window title, draw links (OSC 8) or conceal text (SGR 8); CR and
 * backspace overwrite what was written; bidi controls reorder a line; format
 * characters (zero-width, tags) hide text. Every such character is shown as a
 * visible escape (`\x1b`, `\u202e`), never interpreted and never dropped: the
 * person reading must see that something was there.
 */

/**
 * What a terminal could interpret or not show: C0 controls but LF and TAB,
 * DEL and C1 (`\p{Cc}`), format characters (`\p{Cf}`: bidi embeddings,
 * overrides and isolates, U+200B-U+200F, U+2060-U+2064, U+FEFF, U+061C,
 * soft hyphen, tags), line and paragraph separators, lone surrogates, and the
 * fillers and joiners that draw nothing (U+034F, U+115F, U+1160, U+17B4,
 * U+17B5, U+3164, U+FFA0).
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u115f\u1160\u3164\uffa0]|\u034f|\u17b4|\u17b5/gu;

/** The same characters in a JSON document (JSON.stringify already escapes C0: only its layout LF and spaces remain). */
const UNSAFE_IN_JSON = /[\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u115f\u1160\u3164\uffa0]|\u034f|\u17b4|\u17b5/gu;

/** One piece of text to show: as is, or a visible escape standing for one character. */
export interface TerminalSegment {
  readonly text: string;
  /** True when `text` is the escape of a character that was not shown as itself. */
  readonly escaped: boolean;
}

export interface TerminalTextOptions {
  /** Show LF as `\n` too, for what must stay on one line (a tool name, a log line, a table cell). Default false: LF starts a new line. */
  readonly singleLine?: boolean;
}

/**
 * The visible escape of one character: `\r`, `\n`, `\xHH` up to U+00FF,
 * `\uHHHH` in the Basic Multilingual Plane, `\u{HHHHH}` beyond.
 *
 * @example
 * escapeCharacter('\u001b'); // '\\x1b'
 * escapeCharacter('\u202e'); // '\\u202e'
 */
export function escapeCharacter(character: string): string {
  if (character === '\r') return '\\r';
  if (character === '\n') return '\\n';
  const code = character.codePointAt(0) ?? 0;
  const hex = code.toString(16);
  if (code <= 0xff) return `\\x${hex.padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${hex.padStart(4, '0')}` : `\\u{${hex}}`;
}

/**
 * Splits remote text into what is shown as is and the visible escapes of the
 * characters a terminal would interpret or hide; TAB becomes spaces to the
 * next stop of 8 columns; CR LF ends a line like LF. The REPL draws escapes in a style of their own.
 *
 * @example
 * terminalSegments('a\u001b[8mb'); // [{ text: 'a', escaped: false }, { text: '\\x1b', escaped: true }, { text: '[8mb', escaped: false }]
 */
export function terminalSegments(text: string, options: TerminalTextOptions = {}): TerminalSegment[] {
  const segments: TerminalSegment[] = [];
  let column = 0;
  const plain = (piece: string) => {
    if (piece === '') return;
    // Tabs expanded from the start of the line, so a tab hides nothing and draws no surprise.
    let expanded = '';
    for (const character of piece) {
      if (character === '\n') {
        expanded += character;
        column = 0;
      } else if (character === '\t') {
        const spaces = 8 - (column % 8);
        expanded += ' '.repeat(spaces);
        column += spaces;
      } else {
        expanded += character;
        column += 1;
      }
    }
    const last = segments.at(-1);
    if (last && !last.escaped) segments[segments.length - 1] = { text: last.text + expanded, escaped: false };
    else segments.push({ text: expanded, escaped: false });
  };
  let start = 0;
  for (const match of text.matchAll(UNSAFE)) {
    const character = match[0];
    if (character === '\t' || (character === '\n' && !options.singleLine)) continue;
    // CR LF is a line end (it overwrites nothing); a CR on its own would return over the line, and is shown.
    if (character === '\r' && text[match.index + 1] === '\n' && !options.singleLine) {
      plain(text.slice(start, match.index));
      start = match.index + 1;
      continue;
    }
    plain(text.slice(start, match.index));
    const escape = escapeCharacter(character);
    segments.push({ text: escape, escaped: true });
    column += escape.length;
    start = match.index + character.length;
  }
  plain(text.slice(start));
  return segments;
}

/**
 * Remote text as a string safe to write to a terminal: every character a
 * terminal would interpret or hide is replaced by its visible escape, which
 * `highlight` may wrap in a style (the CLI uses reverse video on a terminal).
 *
 * @example
 * terminalText('Paris\u001b]52;c;aGk=\u0007'); // 'Paris\\x1b]52;c;aGk=\\x07'
 * terminalText('pay\u202eevil', { highlight: (e) => `[${e}]` }); // 'pay[\\u202e]evil'
 */
export function terminalText(text: string, options: TerminalTextOptions & { readonly highlight?: (escape: string) => string } = {}): string {
  const { highlight } = options;
  return terminalSegments(text, options)
    .map((segment) => (segment.escaped && highlight ? highlight(segment.text) : segment.text))
    .join('');
}

/** Reverse video around an escape, so it cannot be taken for text the agent wrote; our own SGR, closed at once. */
export function reverseVideo(escape: string): string {
  return `\u001b[7m${escape}\u001b[27m`;
}

/**
 * Escapes what a terminal would interpret or hide in a JSON text as `\uXXXX`
 * (C1 controls, DEL, bidi controls, U+2028/U+2029, format characters; a
 * character beyond the BMP as its surrogate pair), so the document says the
 * same to a parser and shows nothing hidden when printed. JSON.stringify
 * already escapes C0 controls, ESC included.
 *
 * @example
 * escapeJsonText('{"a":"x\u202ey"}'); // '{"a":"x\\u202ey"}'
 */
export function escapeJsonText(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (character) => {
    let escaped = '';
    for (let i = 0; i < character.length; i++) escaped += `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return escaped;
  });
}

/**
 * `JSON.stringify` for a terminal: the same document, with every character a
 * terminal would interpret or hide written as a `\uXXXX` escape.
 *
 * @example
 * terminalJson({ text: 'a\u009b8mb' }); // '{"text":"a\\u009b8mb"}'
 */
export function terminalJson(value: unknown, indent?: number): string {
  return escapeJsonText(JSON.stringify(value, null, indent) ?? 'null');
}
