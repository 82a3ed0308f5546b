import { createRequire } from 'node:module';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { ModelRequestError } from './model-request-error.js';
import { documentedSchema, grammarOnlySchema, markedSchema } from './tool-schema-grammar.js';
import type { CheckedTool, EngineTool, EngineToolCall } from './tool-calling.js';

const require = createRequire(import.meta.url);
let validator: Ajv2020 | undefined;

/** The validator, made by the first request with tools: ajv (about 200 modules, CommonJS) is not held by an idle model runtime. */
function ajv(): Ajv2020 {
  if (validator) return validator;
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  // Formats other than the grammar's date, time and date-time are annotations (JSON Schema's default).
  return (validator = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, addUsedSchema: false, logger: false }));
}

/**
 * Compiles each tool's parameters twice: into the generation grammar
 * (`toolGrammarSchema`) and, as they were sent, into an ajv validator.
 * Either failing is a 400 naming the tool, before any generation.
 */
export function checkedTools(tools: readonly EngineTool[]): CheckedTool[] {
  return tools.map((tool) => {
    if (!tool.parameters) return { name: tool.name, ...(tool.description ? { description: tool.description } : {}) };
    const marked = markedSchema({ tool: tool.name, schema: tool.parameters });
    const grammar = grammarOnlySchema(marked);
    let validate: ValidateFunction;
    try {
      validate = ajv().compile(tool.parameters);
    } catch (error) {
      throw new ModelRequestError({ status: 400, message: `invalid parameters schema for tool '${tool.name}': ${(error as Error).message}` });
    }
    return { name: tool.name, ...(tool.description ? { description: tool.description } : {}), grammar, documented: documentedSchema(marked), validate };
  });
}

/**
 * Checks the generated calls against the schemas they were generated under.
 * The grammar only lets valid arguments through, so a mismatch is a fault
 * of this server's grammar: a 502 naming the tool and the violation, never a
 * call whose arguments break the schema.
 */
export function checkToolCalls(tools: readonly CheckedTool[], calls: readonly EngineToolCall[]): void {
  for (const call of calls) {
    const tool = tools.find((t) => t.name === call.name);
    if (!tool) throw new ModelRequestError({ status: 502, message: `the model called '${call.name}', which is not among the tools` });
    if (tool.validate && !tool.validate(call.arguments ?? {})) {
      throw new ModelRequestError({
        status: 502,
        message: `the model's arguments for '${call.name}' do not match its parameters schema: ${ajv().errorsText(tool.validate.errors, { dataVar: 'arguments' })}`,
      });
    }
  }
}
