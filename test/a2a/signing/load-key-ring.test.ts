import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../runtime/core/errors/config-error.js';
import { loadKeyRing } from '../../../runtime/a2a/signing/load-key-ring.js';

const dir = mkdtempSync(join(tmpdir(), 'fw-keyring-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET_A = Buffer.alloc(32, 0xa1).toString('base64');
const SECRET_B = Buffer.alloc(48, 0xb2).toString('base64url');
const SECRET_C = Buffer.alloc(32, 0xc3).toString('base64url');
const ALL_SECRETS = [SECRET_A, SECRET_B, SECRET_C];

let fileCount = 0;
function keysFile(content: unknown, options: { mode?: number; under?: string } = {}): string {
  const folder = join(dir, options.under ?? '');
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `keys-${fileCount++}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  chmodSync(path, options.mode ?? 0o600);
  return path;
}

function loadError(env: Record<string, string>): ConfigError {
  try {
    loadKeyRing({ env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe('invalid_config');
    const text = `${(error as Error).message} ${JSON.stringify(error)} ${inspect(error)}`;
    for (const secret of ALL_SECRETS) expect(text).not.toContain(secret);
    return error as ConfigError;
  }
  throw new Error('expected loadKeyRing to throw');
}

const inline = (keys: unknown[]): string => JSON.stringify({ keys });

describe('loadKeyRing', () => {
  it('loads keys from A2A_KEYS_FILE and A2A_KEYS together', () => {
    const file = keysFile({ keys: [{ id: 'planner-1', agent: 'planner', secret: SECRET_A }] });
    const ring = loadKeyRing({
      env: { A2A_KEYS_FILE: file, A2A_KEYS: inline([{ id: 'orch.2', agent: 'orchestrator', secret: SECRET_B }]) },
    });
    expect(ring.size).toBe(2);
    expect(ring.warnings).toEqual([]);
    expect(ring.get('planner-1')?.secret).toEqual(Buffer.alloc(32, 0xa1));
    expect(ring.get('orch.2')).toMatchObject({ agent: 'orchestrator' });
    expect(ring.get('orch.2')?.secret).toEqual(Buffer.alloc(48, 0xb2));
    const shown = `${JSON.stringify(ring)} ${inspect(ring, { showHidden: true })} ${String(ring)} ${JSON.stringify(ring.get('orch.2'))}`;
    for (const secret of ALL_SECRETS) expect(shown).not.toContain(secret);
  });

  it('gives an empty ring when neither variable is set (or they are empty)', () => {
    expect(loadKeyRing({ env: {} }).size).toBe(0);
    expect(loadKeyRing({ env: { A2A_KEYS: '', A2A_KEYS_FILE: ' ' } }).size).toBe(0);
  });

  it('refuses a key id defined in both sources, naming both', () => {
    const file = keysFile({ keys: [{ id: 'dup', agent: 'planner', secret: SECRET_A }] });
    const error = loadError({ A2A_KEYS_FILE: file, A2A_KEYS: inline([{ id: 'dup', agent: 'critic', secret: SECRET_C }]) });
    expect(error.message).toContain('A2A_KEYS:');
    expect(error.message).toContain(`A2A_KEYS_FILE (${file})`);
    expect(error.message).toContain('"dup"');
  });

  it('refuses a key id repeated in one source', () => {
    const error = loadError({
      A2A_KEYS: inline([
        { id: 'dup', agent: 'planner', secret: SECRET_A },
        { id: 'dup', agent: 'planner', secret: SECRET_C },
      ]),
    });
    expect(error.message).toMatch(/A2A_KEYS: the key id "dup" is also defined earlier in the same source/);
  });

  it('names the file when it cannot be read', () => {
    const missing = join(dir, 'nope.json');
    const error = loadError({ A2A_KEYS_FILE: missing });
    expect(error.message).toContain(`A2A_KEYS_FILE (${missing}): cannot be read (ENOENT)`);
  });

  it('reports bad JSON without quoting the text (which may hold a secret)', () => {
    const broken = `{"keys":[{"id":"k","agent":"a","secret":"${SECRET_A}"}`;
    expect(loadError({ A2A_KEYS: broken }).message).toContain('A2A_KEYS: is not valid JSON');
    const file = keysFile(broken);
    expect(loadError({ A2A_KEYS_FILE: file }).message).toContain(`A2A_KEYS_FILE (${file}): is not valid JSON`);
  });

  it('names the source and field of every invalid entry, all at once', () => {
    const file = keysFile({
      keys: [
        { agent: 'planner', secret: SECRET_A },
        { id: 'has space', agent: 'planner', secret: SECRET_A },
        { id: 'upper', agent: 'Planner', secret: SECRET_A },
        { id: 'short', agent: 'planner', secret: Buffer.alloc(31, 1).toString('base64') },
        { id: 'garbage', agent: 'planner', secret: `${SECRET_C}!!` },
        { id: 'nosecret', agent: 'planner' },
        { id: 'x'.repeat(65), agent: 'planner', secret: SECRET_A },
      ],
    });
    const source = `A2A_KEYS_FILE (${file})`;
    const message = loadError({ A2A_KEYS_FILE: file }).message;
    expect(message).toContain(`${source}: keys[0].id: is missing`);
    expect(message).toContain(`${source}: keys[1].id: must be 1-64 of letters`);
    expect(message).toContain(`${source}: keys[2] ("upper").agent: must be a lower-case agent name`);
    expect(message).toContain(`${source}: keys[5] ("nosecret").secret: is missing`);
    expect(message).toContain(`${source}: keys[6].id: must be 1-64`);
    // Secrets are checked once the shape is right.
    const secrets = loadError({
      A2A_KEYS: inline([
        { id: 'short', agent: 'planner', secret: Buffer.alloc(31, 1).toString('base64') },
        { id: 'garbage', agent: 'planner', secret: `${SECRET_C}!!` },
      ]),
    }).message;
    expect(secrets).toContain('A2A_KEYS: keys[0] ("short").secret: decodes to 31 bytes; at least 32 are required');
    expect(secrets).toContain('A2A_KEYS: keys[1] ("garbage").secret: is not base64 or base64url');
  });

  it('names the source for a document of the wrong shape', () => {
    expect(loadError({ A2A_KEYS: '[]' }).message).toContain('A2A_KEYS: the document: must be a JSON object');
    expect(loadError({ A2A_KEYS: '{}' }).message).toContain('A2A_KEYS: keys: is missing');
    expect(loadError({ A2A_KEYS: '{"keys":["x"]}' }).message).toContain('A2A_KEYS: keys[0]: must be an object');
  });

  it('refuses a keys file inside an agent_cards directory, also through a link', () => {
    const inside = keysFile({ keys: [{ id: 'k', agent: 'planner', secret: SECRET_A }] }, { under: 'project/agent_cards' });
    expect(loadError({ A2A_KEYS_FILE: inside }).message).toMatch(/A2A_KEYS_FILE \(.*agent_cards.*\): lies inside an "agent_cards" directory/);
    const link = join(dir, 'innocent-link.json');
    symlinkSync(inside, link);
    expect(loadError({ A2A_KEYS_FILE: link }).message).toContain(`A2A_KEYS_FILE (${link}): lies inside an "agent_cards" directory`);
  });

  it.skipIf(process.platform === 'win32')('loads a file readable by group or others, with a warning naming it', () => {
    const file = keysFile({ keys: [{ id: 'k', agent: 'planner', secret: SECRET_A }] }, { mode: 0o644 });
    const ring = loadKeyRing({ env: { A2A_KEYS_FILE: file } });
    expect(ring.size).toBe(1);
    expect(ring.warnings).toHaveLength(1);
    expect(ring.warnings[0]).toContain(file);
    expect(ring.warnings[0]).toContain('644');
    expect(ring.warnings[0]).toContain('chmod 600');
    expect(ring.warnings[0]).not.toContain(SECRET_A);
    expect(loadKeyRing({ env: { A2A_KEYS_FILE: keysFile({ keys: [] }, { mode: 0o640 }) } }).warnings).toHaveLength(1);
    expect(loadKeyRing({ env: { A2A_KEYS_FILE: keysFile({ keys: [] }, { mode: 0o400 }) } }).warnings).toEqual([]);
  });
});
