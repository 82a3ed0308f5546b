import type { AgentCard } from '@a2a-js/sdk';

/** The protocol version a v0.3 card states (the 0.3 spec's `protocolVersion`). */
const LEGACY_CARD_PROTOCOL_VERSION = '0.3.0';

/**
 * The card in the A2A 0.3 shape, for clients that predate `A2A-Version`
 * (older SDKs and the 0.3 TCK): `url` and `preferredTransport` from the
 * first 0.3 interface, `additionalInterfaces` for the others, 0.3 security
 * schemes (`{ type: 'http', scheme, description }`) and `security`. The 1.0
 * interfaces ride along in `supportedInterfaces`, so a 1.0 client that sent
 * no version header still finds them (the SDK's `embedV1Interfaces`).
 * `undefined` when the card declares no 0.3 interface.
 */
export function legacyCardJson(
  card: AgentCard,
  signing: { name: string; scheme: string; description: string } | undefined,
): Record<string, unknown> | undefined {
  const legacy = card.supportedInterfaces.filter((i) => i.protocolVersion.startsWith('0.'));
  const primary = legacy[0];
  if (!primary) return undefined;
  const others = legacy.slice(1).map((i) => ({ url: i.url, transport: i.protocolBinding }));
  return {
    protocolVersion: LEGACY_CARD_PROTOCOL_VERSION,
    name: card.name,
    description: card.description,
    version: card.version,
    url: primary.url,
    preferredTransport: primary.protocolBinding,
    ...(others.length > 0 ? { additionalInterfaces: others } : {}),
    capabilities: { streaming: card.capabilities?.streaming ?? false, pushNotifications: card.capabilities?.pushNotifications ?? false },
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      tags: skill.tags,
      ...(skill.examples.length > 0 ? { examples: skill.examples } : {}),
      ...(skill.inputModes.length > 0 ? { inputModes: skill.inputModes } : {}),
      ...(skill.outputModes.length > 0 ? { outputModes: skill.outputModes } : {}),
    })),
    ...(card.provider ? { provider: card.provider } : {}),
    ...(card.documentationUrl ? { documentationUrl: card.documentationUrl } : {}),
    ...(signing
      ? {
          securitySchemes: { [signing.name]: { type: 'http', scheme: signing.scheme, description: signing.description } },
          security: [{ [signing.name]: [] }],
        }
      : {}),
    ...(card.signatures.length > 0 ? { signatures: card.signatures } : {}),
    supportedInterfaces: card.supportedInterfaces,
  };
}
