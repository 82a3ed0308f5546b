import { Args, Flags } from '@oclif/core';
import { JsonCommand } from '../../json-command.js';
import { failWithModelError, hostFlag, modelServerClient } from '../../model-server-command.js';
import type { ShowResponse } from '../../../runtime/model/model-server-client.js';

const PARTS = ['modelfile', 'parameters', 'system', 'template', 'license'] as const;

export default class ModelShow extends JsonCommand {
  static override description =
    'Show a model of the running model server (POST /api/show), as `ollama show` does: its details, capabilities, system prompt, parameters and license, or one part of it.';

  static override examples = [
    '<%= config.bin %> model show smollm2',
    '<%= config.bin %> model show my-model --modelfile',
    '<%= config.bin %> model show my-model --parameters',
    '<%= config.bin %> model show my-model --json',
  ];

  static override enableJsonFlag = true;

  static override args = { name: Args.string({ description: 'model name', required: true, ignoreStdin: true }) };

  static override flags = {
    host: hostFlag,
    modelfile: Flags.boolean({ description: 'print the Modelfile', exclusive: ['parameters', 'system', 'template', 'license'] }),
    parameters: Flags.boolean({ description: 'print the parameters', exclusive: ['modelfile', 'system', 'template', 'license'] }),
    system: Flags.boolean({ description: 'print the system prompt', exclusive: ['modelfile', 'parameters', 'template', 'license'] }),
    template: Flags.boolean({ description: 'print the template', exclusive: ['modelfile', 'parameters', 'system', 'license'] }),
    license: Flags.boolean({ description: 'print the license', exclusive: ['modelfile', 'parameters', 'system', 'template'] }),
  };

  async run(): Promise<ShowResponse> {
    const { args, flags } = await this.parse(ModelShow);
    let show: ShowResponse;
    try {
      show = await (await modelServerClient(flags.host)).show(args.name);
    } catch (error) {
      failWithModelError(this, error);
    }
    const part = PARTS.find((p) => flags[p]);
    if (part) {
      this.log(show[part].replace(/\n$/, ''));
      return show;
    }
    this.log(summary(show));
    return show;
  }
}

/** Ollama's `show` layout: sections of indented name/value rows. */
function summary(show: ShowResponse): string {
  const info = show.model_info;
  const family = String(info['general.architecture'] ?? show.details.family ?? '');
  const rows: Array<[string, unknown]> = [
    ['architecture', family],
    ['parameters', show.details.parameter_size],
    ['context length', info[`${family}.context_length`]],
    ['embedding length', info[`${family}.embedding_length`]],
    ['quantization', show.details.quantization_level],
    ['parent model', show.details.parent_model],
  ];
  const sections = [
    section(
      'Model',
      rows.filter(([, value]) => value !== undefined && value !== '').map(([name, value]) => `${name.padEnd(20)}${String(value)}`),
    ),
    section('Capabilities', show.capabilities),
  ];
  if (show.system) sections.push(section('System', show.system.split('\n')));
  if (show.parameters) sections.push(section('Parameters', show.parameters.split('\n')));
  if (show.license) sections.push(section('License', show.license.split('\n').slice(0, 2)));
  return sections.join('\n\n');
}

function section(title: string, lines: readonly string[]): string {
  return [`  ${title}`, ...lines.map((line) => `    ${line}`)].join('\n');
}
