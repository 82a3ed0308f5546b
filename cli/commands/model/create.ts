import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { Args, Flags } from '@oclif/core';
import { JsonCommand } from '../../json-command.js';
import { failWithModelError, hostFlag, modelServerClient } from '../../model-server-command.js';
import { FrameworkError } from '../../../runtime/core/framework-error.js';
import { isValidModelName } from '../../../runtime/model/model-name.js';

export default class ModelCreate extends JsonCommand {
  static override description = `Create a model from a Modelfile on the running model server, as \`ollama create\` does. FROM names a model of the server or a local GGUF file (a path, relative to the Modelfile), which is uploaded as a blob unless the server has it; PARAMETER lines become the model's default options, SYSTEM its system prompt, MESSAGE lines a conversation put before each chat; TEMPLATE and LICENSE are stored and shown (generation uses the GGUF's own chat template). ADAPTER, DRAFT and quantizing are not supported.`;

  static override examples = ['<%= config.bin %> model create pirate -f Modelfile', '<%= config.bin %> model create my-model -f ./models/Modelfile --json'];

  static override enableJsonFlag = true;

  static override args = { name: Args.string({ description: 'name of the new model', required: true, ignoreStdin: true }) };

  static override flags = {
    host: hostFlag,
    file: Flags.string({ char: 'f', description: 'the Modelfile (default: ./Modelfile)', default: 'Modelfile' }),
    quantize: Flags.string({ char: 'q', description: 'quantize the model (refused by this server: create from an already quantized GGUF)' }),
  };

  async run(): Promise<{ model: string; from?: string; files?: Record<string, string>; statuses: string[] }> {
    const { args, flags } = await this.parse(ModelCreate);
    if (!isValidModelName(args.name)) this.error(`invalid model name: ${args.name}`, { exit: 2, code: 'invalid_arguments' });
    const path = resolve(flags.file);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      this.error(
        code === 'ENOENT'
          ? `No Modelfile at ${path}. Write one (for example "FROM smollm2" then "SYSTEM You are terse.") or pass -f <file>.`
          : `Cannot read ${path}: ${(error as Error).message}`,
        { exit: 1, code: 'invalid_arguments' },
      );
    }
    const client = await modelServerClient(flags.host);
    const [{ sha256File }, { modelfileRequest, parseModelfile }] = await Promise.all([
      import('../../../runtime/model/model-store.js'),
      import('../../../runtime/model/modelfile.js'),
    ]);
    const statuses: string[] = [];
    const say = (status: string) => {
      statuses.push(status);
      this.log(status);
    };
    try {
      const { dropped, from, ...fields } = modelfileRequest(parseModelfile(text));
      for (const name of dropped) this.warn(`parameter ${name} is deprecated and was dropped`);
      const local = localWeights(from, dirname(path));
      let base: { from: string } | { files: Record<string, string> } = { from };
      const info = await stat(local).catch(() => undefined);
      if (info?.isDirectory()) throw new FrameworkError({ code: 'invalid_arguments', message: `FROM ${from} is a folder: give the path of one GGUF file` });
      if (info) {
        say('gathering model components');
        const digest = `sha256:${await sha256File(local)}`;
        if (!(await client.hasBlob(digest))) {
          say(`copying file ${digest}`);
          await client.uploadBlob(digest, local);
        }
        base = { files: { [basename(local)]: digest } };
      }
      await client.create({ model: args.name, ...base, ...fields, ...(flags.quantize ? { quantize: flags.quantize } : {}) }, say);
      return { model: args.name, ...base, statuses };
    } catch (error) {
      failWithModelError(this, error);
    }
  }
}

/** Where a FROM value would be on disk, as Ollama's CLI expands it: absolute, `~/...`, or relative to the Modelfile's folder. */
function localWeights(from: string, modelfileDir: string): string {
  if (from === '~' || from.startsWith('~/')) return join(homedir(), from.slice(1));
  return isAbsolute(from) ? from : resolve(modelfileDir, from);
}
