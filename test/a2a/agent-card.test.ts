import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardFromConfig, cardRef, loadAgentCard, parseAgentCard } from '../../runtime/a2a/agent-card.js';
import { AgentCardError } from '../../runtime/a2a/errors/agent-card-error.js';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import { CARDS_DIR, scratchDir } from './support.js';

let scratch: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  scratch = await scratchDir();
});
afterAll(async () => scratch?.remove());

const VALID = {
  name: 'tester',
  description: 'A test agent',
  url: 'http://127.0.0.1:9000/',
  version: '1.2.3',
  capabilities: { streaming: true, pushNotifications: false },
  skills: [],
};

async function writeRaw(name: string, text: string): Promise<string> {
  const path = join(scratch.dir, name);
  await writeFile(path, text);
  return path;
}

async function loadError(path: string): Promise<AgentCardError> {
  const error = await loadAgentCard(path).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AgentCardError);
  expect(FrameworkError.isInstance(error)).toBe(true);
  expect((error as AgentCardError).code).toBe('invalid_agent_card');
  return error as AgentCardError;
}

describe('the shipped agent cards', () => {
  it('load the executor card into a valid A2A card', async () => {
    const [card, meta] = await loadAgentCard(join(CARDS_DIR, 'executor.json'));
    expect(card.name).toBe('executor');
    expect(card.version).toBe('0.1.0');
    expect(card.supportedInterfaces).toEqual([
      { url: 'http://127.0.0.1:8101/', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: 'http://127.0.0.1:8101/rest', protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
      { url: 'http://127.0.0.1:8101/', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
      { url: 'http://127.0.0.1:8101/', protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '0.3' },
    ]);
    expect(card.capabilities).toEqual({ streaming: true, pushNotifications: false, extensions: [] });
    expect(card.skills).toEqual([
      {
        id: 'execute_action',
        name: 'Execute action',
        description: 'Carries out one plain-text action and reports its outcome.',
        tags: ['execution'],
        examples: ['Book the meeting room'],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ]);
    expect(card.defaultInputModes).toEqual(['text/plain', 'application/json']);
    expect(card.defaultOutputModes).toEqual(['text/plain', 'application/json']);
    expect(meta).toEqual({ file: join(CARDS_DIR, 'executor.json'), extra: {} });
  });

  it('load the planner card with its URL, capabilities and skill', async () => {
    const [card] = await loadAgentCard(join(CARDS_DIR, 'planner.json'));
    expect(card.name).toBe('planner');
    expect(card.supportedInterfaces[0]?.url).toBe('http://127.0.0.1:8100/');
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.capabilities?.pushNotifications).toBe(false);
    expect(card.skills.map((s) => [s.id, s.tags])).toEqual([['plan_and_delegate', ['planning', 'a2a']]]);
    expect(cardRef(card)).toEqual({ name: 'planner', description: card.description, url: 'http://127.0.0.1:8100/' });
  });
});

describe('parseAgentCard', () => {
  it('accepts JSON booleans and "True"/"False" words alike', () => {
    const [words] = parseAgentCard({ ...VALID, capabilities: { streaming: 'False', pushNotifications: 'True' } });
    const [booleans] = parseAgentCard({ ...VALID, capabilities: { streaming: false, pushNotifications: true } });
    expect(words.capabilities).toEqual({ streaming: false, pushNotifications: true, extensions: [] });
    expect(booleans.capabilities).toEqual(words.capabilities);
  });

  it('refuses a capability that is not a boolean word', () => {
    expect(() => parseAgentCard({ ...VALID, capabilities: { streaming: 'yes' } })).toThrow('agent card: field "capabilities.streaming" must be true or false');
  });

  it('serves a card file with no skills with one skill for the agent as a whole (the 1.0 proto requires one)', () => {
    expect(parseAgentCard(VALID)[0].skills).toEqual([
      {
        id: 'tester',
        name: 'tester',
        description: VALID.description,
        tags: ['tester'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ]);
  });

  it("fills a skill's REQUIRED description and tags from its name and id when the file leaves them out", () => {
    const [card] = parseAgentCard({ ...VALID, skills: [{ name: 'Book a Room!' }] });
    expect(card.skills[0]).toMatchObject({ id: 'book_a_room', description: 'Book a Room!', tags: ['book_a_room'] });
  });

  it('gives a skill without an id one made from its name', () => {
    const [card] = parseAgentCard({ ...VALID, skills: [{ name: 'Book a Room!' }] });
    expect(card.skills[0]?.id).toBe('book_a_room');
  });

  it('keeps unknown fields in meta.extra and out of the card', () => {
    const [card, meta] = parseAgentCard({ ...VALID, team: 'ops', limits: { rpm: 10 } });
    expect(meta.extra).toEqual({ team: 'ops', limits: { rpm: 10 } });
    expect(meta.file).toBeUndefined();
    expect(card).not.toHaveProperty('team');
    expect(card).not.toHaveProperty('limits');
  });

  it('refuses secret-looking fields, top level or nested, naming the field', () => {
    for (const [raw, field] of [
      [{ ...VALID, hmac_key: 'abc' }, 'hmac_key'],
      [{ ...VALID, apiKey: 'abc' }, 'apiKey'],
      [{ ...VALID, auth: { client_secret: 'abc' } }, 'auth.client_secret'],
      [{ ...VALID, capabilities: { streaming: true, signingKey: 'abc' } }, 'capabilities.signingKey'],
      [{ ...VALID, provider: { organization: 'o', url: 'http://o', api_key: 'abc' } }, 'provider.api_key'],
      [{ ...VALID, skills: [{ name: 's', password: 'abc' }] }, 'skills.0.password'],
    ] as const) {
      const error = (() => {
        try {
          parseAgentCard(raw, { file: 'cards/x.json' });
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(AgentCardError);
      expect((error as AgentCardError).field).toBe(field);
      expect((error as AgentCardError).message).toMatch(new RegExp(`^cards/x\\.json: field "${field.replaceAll('.', '\\.')}" looks like a secret`));
    }
  });

  it('declares modes as media types: bare words become their media type, duplicates go', () => {
    const [card] = parseAgentCard({
      ...VALID,
      defaultInputModes: ['text', 'text/plain', 'data'],
      defaultOutputModes: ['TEXT', 'image/png'],
      skills: [{ name: 's', inputModes: ['file'] }],
    });
    expect(card.defaultInputModes).toEqual(['text/plain', 'application/json']);
    expect(card.defaultOutputModes).toEqual(['text/plain', 'image/png']);
    expect(card.skills[0]?.inputModes).toEqual(['application/octet-stream']);
  });

  it('refuses a mode that is not a media type, naming the field', () => {
    expect(() => parseAgentCard({ ...VALID, defaultInputModes: ['text', 'voice'] }, { file: 'cards/x.json' })).toThrow(
      'cards/x.json: field "defaultInputModes.1" must be a media type such as text/plain or application/json',
    );
  });

  it('declares the REST binding beside JSON-RPC under the same path', () => {
    const [card] = parseAgentCard({ ...VALID, url: 'http://127.0.0.1:7000/rpc/' });
    expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.protocolVersion])).toEqual([
      ['JSONRPC', 'http://127.0.0.1:7000/rpc/', '1.0'],
      ['HTTP+JSON', 'http://127.0.0.1:7000/rpc/rest', '1.0'],
      ['JSONRPC', 'http://127.0.0.1:7000/rpc/', '0.3'],
      ['HTTP+JSON', 'http://127.0.0.1:7000/rpc/', '0.3'],
    ]);
  });

  it('a card file with protocolVersion 0.3.x describes a v0.3-only peer', () => {
    const [card] = parseAgentCard({ ...VALID, protocolVersion: '0.3.0' });
    expect(card.supportedInterfaces).toEqual([{ url: 'http://127.0.0.1:9000/', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' }]);
    expect(() => parseAgentCard({ ...VALID, protocolVersion: 'latest' })).toThrow('field "protocolVersion" must be a protocol version');
  });

  it('refuses a non-object card', () => {
    expect(() => parseAgentCard([1, 2])).toThrow('agent card: field "(root)" must be a JSON object');
  });

  it('cardFromConfig builds a streaming card with one skill for the agent', () => {
    const card = cardFromConfig({ name: 'a', description: 'b', version: '2.0.0', url: 'http://127.0.0.1:7000/' });
    expect(card.supportedInterfaces[0]).toEqual({ url: 'http://127.0.0.1:7000/', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' });
    expect(card.capabilities).toEqual({ streaming: true, pushNotifications: false, extensions: [] });
    expect(card.skills.map((skill) => [skill.id, skill.name, skill.description, skill.tags])).toEqual([['a', 'a', 'b', ['a']]]);
  });
});

describe('loadAgentCard errors name the file and the field', () => {
  it('a missing file', async () => {
    const path = join(scratch.dir, 'nope.json');
    const error = await loadError(path);
    expect(error.message).toBe(`Agent card ${path} does not exist. Check AGENT_CARD or the path given.`);
    expect(error.file).toBe(path);
  });

  it('a directory', async () => {
    const path = join(scratch.dir, 'a-dir.json');
    await mkdir(path);
    expect((await loadError(path)).message).toBe(`Agent card ${path} is a directory. Check AGENT_CARD or the path given.`);
  });

  it('invalid JSON', async () => {
    const path = await writeRaw('broken.json', '{"name": ');
    const error = await loadError(path);
    expect(error.message).toMatch(new RegExp(`^Agent card ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON: `));
    expect(error.field).toBeUndefined();
  });

  for (const field of ['name', 'description', 'url', 'version', 'capabilities', 'skills'] as const) {
    it(`a missing "${field}"`, async () => {
      const { [field]: _omitted, ...rest } = VALID;
      const path = await writeRaw(`no-${field}.json`, JSON.stringify(rest));
      const error = await loadError(path);
      expect(error.file).toBe(path);
      expect(error.field).toBe(field);
      expect(error.message).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: field "${field}" is required`));
    });
  }

  it('a relative url and a non-semantic version', async () => {
    const badUrl = await loadError(await writeRaw('bad-url.json', JSON.stringify({ ...VALID, url: '/a2a' })));
    expect(badUrl.field).toBe('url');
    const badVersion = await loadError(await writeRaw('bad-version.json', JSON.stringify({ ...VALID, version: 'latest' })));
    expect(badVersion.message).toContain('field "version" must be a semantic version such as 1.0.0');
  });

  it('a secret-looking field in a file', async () => {
    const path = await writeRaw('secret.json', JSON.stringify({ ...VALID, hmac_key: 'c2VjcmV0' }));
    const error = await loadError(path);
    expect(error.field).toBe('hmac_key');
    expect(error.message).toContain(path);
    expect(error.message).not.toContain('c2VjcmV0');
  });
});
