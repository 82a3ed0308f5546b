import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { generateSecret } from '../a2a/signing/signing-key.js';
import { FrameworkError } from '../core/framework-error.js';

interface KeyEntry {
  id: string;
  agent: string;
  secret: string;
}

/**
 * Adds a fresh HMAC key for `agent` to the project's A2A keys file (the
 * `A2A_KEYS_FILE` format `{"keys":[{"id","agent","secret"}]}`), creating it
 * with mode 0600 in a 0700 folder. An agent that has a key keeps it. Returns
 * the key id. The file holds secrets: it never lives under `agent_cards/`.
 *
 * @example
 * await addAgentKey({ file: '/p/.framework/secrets/a2a-keys.json', agent: 'planner' }); // 'planner-1'
 */
export async function addAgentKey(options: { file: string; agent: string }): Promise<string> {
  if (options.file.split(/[\\/]/).includes('agent_cards')) {
    throw new FrameworkError({ code: 'internal_error', message: `Refusing to write A2A keys inside an agent_cards folder (${options.file}).` });
  }
  const keys = await readKeys(options.file);
  const existing = keys.find((key) => key.agent === options.agent);
  if (existing) return existing.id;
  const id = `${options.agent}-1`;
  keys.push({ id, agent: options.agent, secret: generateSecret() });
  await mkdir(dirname(options.file), { recursive: true, mode: 0o700 });
  await writeFile(options.file, `${JSON.stringify({ keys }, null, 2)}\n`, { mode: 0o600 });
  // The mode of writeFile applies only when it creates the file.
  await chmod(options.file, 0o600);
  return id;
}

async function readKeys(file: string): Promise<KeyEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return [];
  }
  try {
    const document = JSON.parse(text) as { keys?: KeyEntry[] };
    return Array.isArray(document.keys) ? document.keys : [];
  } catch {
    throw new FrameworkError({ code: 'invalid_request', message: `${file} is not valid JSON; fix it or delete it to have new keys generated.` });
  }
}
