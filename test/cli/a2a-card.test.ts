import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentCard } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { parseAgentCard } from '../../runtime/a2a/agent-card.js';
import { runCliInProcess } from '../support/cli.js';
import { endlessAnswer, freePort, httpPeers } from '../support/net.js';

const dir = mkdtempSync(join(tmpdir(), 'fw-a2a-card-'));
const keys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const other = generateKeyPairSync('ed25519');
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const privatePem = file('key.pem', keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
const publicPem = file('key.pub.pem', keys.publicKey.export({ type: 'spki', format: 'pem' }).toString());
const otherPublicPem = file('other.pub.pem', other.publicKey.export({ type: 'spki', format: 'pem' }).toString());
const [card] = parseAgentCard({
  name: 'executor',
  description: 'Carries out actions',
  url: 'http://127.0.0.1:8101/',
  version: '1.0.0',
  capabilities: { streaming: true, pushNotifications: false },
  skills: [{ name: 'Execute action', tags: ['execution'] }],
});
const cardFile = file('card.json', JSON.stringify(AgentCard.toJSON(card)));

describe('framework-cli a2a card sign|verify (JWS card signatures)', () => {
  it('signs a card with an EC key and verifies it with the public key', async () => {
    const signedFile = join(dir, 'signed.json');
    const sign = await runCliInProcess(['a2a', 'card', 'sign', '--card', cardFile, '--key', privatePem, '--kid', 'executor-1', '--out', signedFile, '--json']);
    expect(sign.code).toBe(0);
    expect(JSON.parse(sign.stdout).signatures).toBe(1);
    const signed = JSON.parse(readFileSync(signedFile, 'utf8')) as { signatures: { protected: string; signature: string }[]; name: string };
    expect(JSON.parse(Buffer.from(signed.signatures[0]!.protected, 'base64url').toString())).toMatchObject({ alg: 'ES256', kid: 'executor-1' });
    const verify = await runCliInProcess(['a2a', 'card', 'verify', '--card', signedFile, '--key', publicPem, '--json']);
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.stdout)).toEqual({ ok: true, name: 'executor', keyIds: ['executor-1'] });
  });

  it('refuses a tampered card, a card checked with another key, and an unsigned card', async () => {
    const signedFile = join(dir, 'signed2.json');
    await runCliInProcess(['a2a', 'card', 'sign', '--card', cardFile, '--key', privatePem, '--kid', 'k', '--out', signedFile, '--json']);
    const signed = JSON.parse(readFileSync(signedFile, 'utf8')) as Record<string, unknown>;
    const tampered = file('tampered.json', JSON.stringify({ ...signed, description: 'Sends all your data elsewhere' }));
    for (const [cardPath, key] of [
      [tampered, publicPem],
      [signedFile, otherPublicPem],
      [cardFile, publicPem],
    ] as const) {
      const result = await runCliInProcess(['a2a', 'card', 'verify', '--card', cardPath, '--key', key, '--json']);
      expect([cardPath, result.code]).toEqual([cardPath, 1]);
      expect(JSON.parse(result.stdout).error.code).toBe('invalid_agent_card');
    }
  });

  it('says what went wrong fetching a card from a URL: nothing listening, or an answer with no end (not held in memory)', async () => {
    const peers = httpPeers();
    try {
      const closed = `http://127.0.0.1:${await freePort()}`;
      const endless = await peers.serve(endlessAnswer());
      for (const [url, why] of [
        [closed, /failed: connect ECONNREFUSED 127\.0\.0\.1:\d+\.$/],
        [endless, new RegExp(`failed: the answer is over ${4 * 1024 * 1024} bytes\\.$`)],
      ] as const) {
        const result = await runCliInProcess(['a2a', 'card', 'verify', '--card', url, '--key', publicPem, '--json']);
        expect([url, result.code]).toEqual([url, 1]);
        const { error } = JSON.parse(result.stdout) as { error: { code: string; message: string } };
        expect(error.code).toBe('invalid_agent_card');
        expect(error.message).toContain(`GET ${url}/.well-known/agent-card.json failed: `);
        expect(error.message).toMatch(why);
      }
    } finally {
      await peers.closeAll();
    }
  });

  it('says clearly when the card file is not an A2A card', async () => {
    const bad = file('bad.json', JSON.stringify({ hello: 'world' }));
    const result = await runCliInProcess(['a2a', 'card', 'sign', '--card', bad, '--key', privatePem, '--kid', 'k']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is not an A2A 1.0 agent card');
  });
});

describe('an agent serving its card signed (A2A_CARD_SIGNING_KEY_FILE)', () => {
  it('serves a card whose signature verifies with the public key, through the CLI against its URL', async () => {
    const { runProbe, probeAgent, makeKeys, writeCard } = await import('../a2a/support.js');
    const keysForAgents = makeKeys(['probe']);
    const built = probeAgent('probe');
    const running = await runProbe(built.core, built.agent, {
      AGENT_CARD: await writeCard(dir, 'probe'),
      A2A_KEYS: keysForAgents.json,
      A2A_VALIDATION_MODE: 'disabled',
      A2A_CARD_SIGNING_KEY_FILE: privatePem,
      A2A_CARD_SIGNING_KEY_ID: 'probe-card-1',
    });
    try {
      const served = (await (await fetch(`${running.url}/.well-known/agent-card.json`)).json()) as {
        signatures: unknown[];
        supportedInterfaces: { url: string }[];
      };
      expect(served.signatures).toHaveLength(1);
      expect(served.supportedInterfaces[0]?.url).toBe(running.a2aUrl);
      const ok = await runCliInProcess(['a2a', 'card', 'verify', '--card', running.url, '--key', publicPem, '--json']);
      expect(ok.code, ok.stdout + ok.stderr).toBe(0);
      expect(JSON.parse(ok.stdout)).toEqual({ ok: true, name: 'probe', keyIds: ['probe-card-1'] });
      const wrong = await runCliInProcess(['a2a', 'card', 'verify', '--card', running.url, '--key', otherPublicPem, '--json']);
      expect(wrong.code).toBe(1);
    } finally {
      await running.close();
    }
  });

  it('refuses to start with a signing key file but no key id', async () => {
    const { runProbe, probeAgent, writeCard } = await import('../a2a/support.js');
    const built = probeAgent('probe');
    await expect(
      runProbe(built.core, built.agent, { AGENT_CARD: await writeCard(dir, 'probe'), A2A_VALIDATION_MODE: 'disabled', A2A_CARD_SIGNING_KEY_FILE: privatePem }),
    ).rejects.toThrow(/A2A_CARD_SIGNING_KEY_ID/);
  });
});
