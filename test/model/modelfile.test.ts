import { describe, expect, it } from 'vitest';
import { checkParameters, parametersText } from '../../runtime/model/model-parameters.js';
import { modelfileRequest, parseModelfile, renderModelfile } from '../../runtime/model/modelfile.js';

describe('parseModelfile', () => {
  it('reads every instruction, case-insensitive, with comments and blank lines', () => {
    const text = [
      '# a comment',
      'from smollm2:latest',
      '',
      'PARAMETER temperature 0.2',
      'parameter stop <|im_end|>',
      'PARAMETER stop "User:"',
      'SYSTEM You are terse.',
      'MESSAGE user Is it raining?',
      'MESSAGE assistant No.',
      'LICENSE MIT',
    ].join('\n');
    expect(parseModelfile(text)).toEqual([
      { name: 'model', args: 'smollm2:latest' },
      { name: 'temperature', args: '0.2' },
      { name: 'stop', args: '<|im_end|>' },
      { name: 'stop', args: 'User:' },
      { name: 'system', args: 'You are terse.' },
      { name: 'message', args: 'user: Is it raining?' },
      { name: 'message', args: 'assistant: No.' },
      { name: 'license', args: 'MIT' },
    ]);
  });

  it('reads """ and " strings across lines, keeping inner quotes and newlines', () => {
    const text = 'FROM ./model.gguf\nSYSTEM """\nYou say "arr".\nAlways.\n"""\nTEMPLATE "{{ .System }}\n{{ .Prompt }}"\r\nLICENSE """MIT"""';
    expect(parseModelfile(text)).toEqual([
      { name: 'model', args: './model.gguf' },
      { name: 'system', args: '\nYou say "arr".\nAlways.\n' },
      { name: 'template', args: '{{ .System }}\n{{ .Prompt }}' },
      { name: 'license', args: 'MIT' },
    ]);
  });

  it('keeps the spaces inside an unquoted value and trims its ends', () => {
    expect(parseModelfile('FROM   /models/my model.gguf   \nSYSTEM   two  spaces ')).toEqual([
      { name: 'model', args: '/models/my model.gguf' },
      { name: 'system', args: 'two  spaces' },
    ]);
  });

  it.each([
    ['PARAMETER temperature 1', /no FROM line/],
    ['FROM x\nFROBNICATE y', /\(line 2\): command must be one of "from", "license"/],
    ['FROM x\nMESSAGE robot hi', /\(line 2\): message role must be one of "system", "user", or "assistant"/],
    ['FROM x\nSYSTEM """never closed', /unexpected EOF: """ is never closed/],
    ['FROM x\nSYSTEM "open', /unexpected EOF: " is never closed/],
    ['FROM x\nPARAMETER temperature', /unexpected EOF/],
    ['FROM x\nSYSTEM "a" b', /unexpected text after the closing quote/],
  ])('refuses %j', (text, message) => {
    expect(() => parseModelfile(text)).toThrow(message);
  });
});

describe('modelfileRequest', () => {
  it('types parameters as Ollama does, collects stop values and licenses, and drops deprecated ones', () => {
    const request = modelfileRequest(
      parseModelfile(
        'FROM smollm2\nPARAMETER temperature 0.5\nPARAMETER num_ctx 4096\nPARAMETER use_mmap false\nPARAMETER stop a\nPARAMETER stop b\nPARAMETER mirostat 1\nLICENSE MIT\nLICENSE Apache-2.0\nMESSAGE user Hi: there\nSYSTEM s\nTEMPLATE t',
      ),
    );
    expect(request).toEqual({
      from: 'smollm2',
      system: 's',
      template: 't',
      parameters: { temperature: 0.5, num_ctx: 4096, use_mmap: false, stop: ['a', 'b'] },
      license: ['MIT', 'Apache-2.0'],
      messages: [{ role: 'user', content: 'Hi: there' }],
      dropped: ['mirostat'],
    });
  });

  it.each([
    ['FROM x\nPARAMETER temprature 1', "unknown parameter 'temprature'"],
    ['FROM x\nPARAMETER num_ctx 1.5', 'invalid int value [1.5]'],
    ['FROM x\nPARAMETER top_p high', 'invalid float value [high]'],
    ['FROM x\nPARAMETER use_mmap maybe', 'invalid bool value [maybe]'],
    ['FROM x\nADAPTER ./lora.gguf', /ADAPTER is not supported/],
  ])('refuses %j', (text, message) => {
    expect(() => modelfileRequest(parseModelfile(text))).toThrow(message);
  });

  it('round-trips through the Modelfile /api/show writes', () => {
    const model = {
      name: 'pirate:latest',
      path: '/store/blobs/sha256-abc',
      system: 'Line one\nline two',
      template: '{{ .Prompt }}',
      parameters: { temperature: 0.2, stop: ['<|im_end|>', 'x y'] },
      license: 'MIT',
      messages: [{ role: 'user', content: 'Ahoy' }],
    };
    const text = renderModelfile(model);
    expect(text).toContain('# FROM pirate:latest');
    expect(modelfileRequest(parseModelfile(text))).toEqual({
      from: '/store/blobs/sha256-abc',
      system: 'Line one\nline two',
      template: '{{ .Prompt }}',
      parameters: { temperature: 0.2, stop: ['<|im_end|>', 'x y'] },
      license: ['MIT'],
      messages: [{ role: 'user', content: 'Ahoy' }],
      dropped: [],
    });
  });
});

describe('create parameters', () => {
  it('accepts typed values and strings read as a Modelfile would, and writes the show text', () => {
    const checked = checkParameters({ temperature: '0.3', num_predict: 8.9, stop: 'END', use_mmap: true });
    expect(checked).toEqual({ temperature: 0.3, num_predict: 8, stop: ['END'], use_mmap: true });
    expect(parametersText(checked).split('\n')).toEqual([
      `${'temperature'.padEnd(30)} 0.3`,
      `${'num_predict'.padEnd(30)} 8`,
      `${'stop'.padEnd(30)} "END"`,
      `${'use_mmap'.padEnd(30)} true`,
    ]);
  });

  it.each([
    [{ temprature: 1 }, "unknown parameter 'temprature'"],
    [{ temperature: true }, "parameter 'temperature' must be a number"],
    [{ use_mmap: 1 }, "parameter 'use_mmap' must be a boolean"],
    [{ stop: [1] }, "parameter 'stop' must be a string or a list of strings"],
  ])('refuses %j with a 400', (parameters, message) => {
    expect(() => checkParameters(parameters)).toThrow(message);
  });
});
