import { readFile, writeFile } from 'node:fs/promises';
import { Flags } from '@oclif/core';
import { JsonCommand } from '../../../json-command.js';
import { failWith } from '../../../fail-with.js';
import { remoteText } from '../../../remote-text.js';
import { terminalJson } from '../../../../runtime/core/terminal-text.js';

export default class A2ACardSign extends JsonCommand {
  static override description =
    "Sign an A2A agent card (the 1.0 JSON served at /.well-known/agent-card.json, from a file or an agent's URL) with a JWS, as the A2A spec's card signatures: the card with its signatures is printed or written to --out.";

  static override examples = [
    '<%= config.bin %> a2a card sign --card http://127.0.0.1:8101 --key card-key.pem --kid executor-2026 --out executor.signed.json',
    '<%= config.bin %> a2a card sign --card card.json --key card-key.pem --kid k1 --json',
  ];

  static override enableJsonFlag = true;

  static override flags = {
    card: Flags.string({ description: 'card file, or agent URL (its well-known card is fetched)', required: true }),
    key: Flags.file({ description: 'PEM private key (EC P-256/384/521, Ed25519 or RSA)', required: true, exists: true }),
    kid: Flags.string({ description: 'key id put in the JWS header (kid)', required: true }),
    jku: Flags.string({ description: 'URL of the JWK set verifiers fetch the key from (jku)' }),
    out: Flags.file({ description: 'write the signed card here instead of standard output' }),
  };

  async run(): Promise<{ card: unknown; signatures: number }> {
    const { flags } = await this.parse(A2ACardSign);
    try {
      const [{ AgentCard }, { readAgentCardDocument, signAgentCard }] = await Promise.all([
        import('@a2a-js/sdk'),
        import('../../../../runtime/a2a/card-signing.js'),
      ]);
      const card = await readAgentCardDocument(flags.card);
      const signed = await signAgentCard(card, {
        privateKeyPem: await readFile(flags.key, 'utf8'),
        keyId: flags.kid,
        ...(flags.jku ? { jku: flags.jku } : {}),
      });
      const json = AgentCard.toJSON(signed);
      if (flags.out) await writeFile(flags.out, `${JSON.stringify(json, null, 2)}\n`);
      if (!this.jsonEnabled())
        this.log(
          flags.out
            ? `Signed ${remoteText(card.name, { singleLine: true })}'s card (${signed.signatures.length} signature(s)) into ${flags.out}.`
            : terminalJson(json, 2),
        );
      return { card: json, signatures: signed.signatures.length };
    } catch (error) {
      failWith(this, error);
    }
  }
}
