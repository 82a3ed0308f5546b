import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { RUN_DIR, ServiceSpecSchema } from './project-file.js';

/** What `up --detach` hands to the background supervisor, relative to the project root. */
export const STACK_FILE = `${RUN_DIR}/stack.json`;

export const StackFileSchema = z.object({
  cliPath: z.string(),
  healthTimeoutMs: z.number().int().positive().optional(),
  services: z.array(ServiceSpecSchema),
});
export type StackFile = z.infer<typeof StackFileSchema>;

/**
 * Writes the resolved services for the background supervisor.
 *
 * @example
 * writeStackFile({ root, stack: { cliPath, services } });
 */
export function writeStackFile(options: { root: string; stack: z.input<typeof StackFileSchema> }): void {
  mkdirSync(join(options.root, RUN_DIR), { recursive: true });
  writeFileSync(join(options.root, STACK_FILE), `${JSON.stringify(StackFileSchema.parse(options.stack), null, 2)}\n`);
}

/**
 * Reads and checks the stack file; throws when it is missing or malformed.
 *
 * @example
 * const { cliPath, services } = readStackFile({ root });
 */
export function readStackFile(options: { root: string }): StackFile {
  return StackFileSchema.parse(JSON.parse(readFileSync(join(options.root, STACK_FILE), 'utf8')));
}
