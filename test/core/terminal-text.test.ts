import { describe, expect, it } from 'vitest';
import { escapeJsonText, terminalJson, terminalSegments, terminalText } from '../../runtime/core/terminal-text.js';

/** Every character a terminal interprets or may hide, by family. */
const DANGEROUS = [
  '\u0000',
  '\u0007',
  '\b',
  '\r',
  '\u000b',
  '\f',
  '\u001b',
  '\u007f', // C0 and DEL
  '\u0080',
  '\u0090',
  '\u009b',
  '\u009d',
  '\u009f', // C1: 8-bit CSI, OSC, DCS
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200e',
  '\u200f',
  '\u061c', // bidi
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\ufeff',
  '\u00ad',
  '\u2028',
  '\u2029',
  '\u{e0041}',
  '\u3164', // invisible
];

describe('terminalText', () => {
  it('shows every control, bidi and invisible character as a visible escape, and keeps the text around it', () => {
    for (const character of DANGEROUS) {
      const shown = terminalText(`a${character}b`);
      expect(shown, JSON.stringify(character)).toMatch(/^a\\(x[0-9a-f]{2}|u[0-9a-f]{4}|u\{[0-9a-f]+\}|r)b$/);
      expect(shown).not.toContain(character);
    }
  });

  it('shows an escape sequence, never interprets it: OSC 52, a window title, OSC 8, SGR 8', () => {
    expect(terminalText('ok\u001b]52;c;cm0gLXJmIH4=\u0007')).toBe('ok\\x1b]52;c;cm0gLXJmIH4=\\x07');
    expect(terminalText('\u001b]0;sudo ok\u0007Working')).toBe('\\x1b]0;sudo ok\\x07Working');
    expect(terminalText('\u001b]8;;https://evil.example\u001b\\docs\u001b]8;;\u001b\\')).toBe('\\x1b]8;;https://evil.example\\x1b\\docs\\x1b]8;;\\x1b\\');
    expect(terminalText('amount is 50\u001b[8m000\u001b[28m')).toBe('amount is 50\\x1b[8m000\\x1b[28m');
  });

  it('marks each escape as such, so the REPL can draw it in a style of its own', () => {
    expect(terminalSegments('pay \u202eexe.pdf')).toEqual([
      { text: 'pay ', escaped: false },
      { text: '\\u202e', escaped: true },
      { text: 'exe.pdf', escaped: false },
    ]);
    expect(terminalText('x\u009by', { highlight: (e) => `<${e}>` })).toBe('x<\\x9b>y');
  });

  it('keeps line feeds (CR LF as a line end, a lone CR shown), or shows them too on one line; expands tabs to stops of 8; keeps other text as it is', () => {
    expect(terminalText('one\ntwo')).toBe('one\ntwo');
    expect(terminalText('one\ntwo', { singleLine: true })).toBe('one\\ntwo');
    expect(terminalText('one\r\ntwo\rTWO')).toBe('one\ntwo\\rTWO');
    expect(terminalText('one\r\ntwo', { singleLine: true })).toBe('one\\r\\ntwo');
    expect(terminalText('a\tb\nabcdefgh\tc')).toBe('a       b\nabcdefgh        c');
    const plain = 'Привет, 世界 👋🏽 — café C:\\temp';
    expect(terminalText(plain)).toBe(plain);
  });
});

describe('terminalJson', () => {
  it('writes C1 controls, DEL, bidi controls, separators and format characters as \\uXXXX; the document parses back the same', () => {
    const value = { text: `a${DANGEROUS.join('')}b`, [`k\u202e`]: ['\u009b2J'] };
    const json = terminalJson(value, 2);
    expect(json).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060\u2066-\u2069\ufeff\u061c\u00ad]/);
    expect(json).not.toMatch(/[\u{e0000}-\u{e007f}]/u);
    expect(json).toContain('\\u202e');
    expect(json).toContain('\\u009b');
    expect(json).toContain('\\u001b');
    expect(json).toContain('\\udb40\\udc41');
    expect(JSON.parse(json)).toEqual(value);
    expect(json.split('\n')).toHaveLength(JSON.stringify(value, null, 2).split('\n').length);
  });

  it('escapes a JSON text written by someone else the same way', () => {
    expect(escapeJsonText('{"a":"x\u2028y\u0085"}')).toBe('{"a":"x\\u2028y\\u0085"}');
  });
});
