import { readFile } from 'node:fs/promises';
import { Flags } from '@oclif/core';
import { JsonCommand } from '../../../json-command.js';
import { failWith } from '../../../fail-with.js';
import { remoteText } from '../../../remote-text.js';

export default class A2ACardVerify extends JsonCommand {
  static override description =
    "Verify the JWS signatures of an A2A agent card (a file or an agent's URL) with a public key: exits 1 unless one signature verifies over the card as it is.";

  static override examples = [
    '<%= config.bin %> a2a card verify --card executor.signed.json --key card-key.pub.pem',
    '<%= config.bin %> a2a card verify --card http://127.0.0.1:8101 --key card-key.pub.pem --json',
  ];

  static override enableJsonFlag = true;

  static override flags = {
    card: Flags.string({ description: 'card file, or agent URL (its well-known card is fetched)', required: true }),
    key: Flags.file({ description: 'PEM public key of the signer', required: true, exists: true }),
  };

  async run(): Promise<{ ok: true; name: string; keyIds: string[] }> {
    const { flags } = await this.parse(A2ACardVerify);
    try {
      const { readAgentCardDocument, verifyAgentCard } = await import('../../../../runtime/a2a/card-signing.js');
      const card = await readAgentCardDocument(flags.card);
      const { keyIds } = await verifyAgentCard(card, { publicKeyPem: await readFile(flags.key, 'utf8') });
      if (!this.jsonEnabled())
        this.log(
          `The card of ${remoteText(card.name, { singleLine: true })} is signed (kid ${remoteText(keyIds.join(', '), { singleLine: true })}) and verifies.`,
        );
      return { ok: true, name: card.name, keyIds };
    } catch (error) {
      failWith(this, error);
    }
  }
}
