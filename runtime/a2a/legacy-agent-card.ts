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

/**
 * The card for a request that names no version: the 1.0 card with every 0.3
 * field it lacks added (`url`, `preferredTransport`, `protocolVersion`,
 * `additionalInterfaces`, `security`, and the 0.3 keys inside objects and
 * list items of the same position), as the official Python SDK's server
 * serves it, so a 0.3 client (which sends no `A2A-Version` and requires
 * `url`) and a 1.0 client (which reads `supportedInterfaces`, and treats a
 * card that has them as 1.0) both read it. Fields of the 1.0 card always win.
 */
export function cardForAnyVersion(v1: Record<string, unknown>, legacy: Record<string, unknown> | undefined): Record<string, unknown> {
  return legacy ? addMissing(structuredClone(v1), legacy) : v1;
}

function addMissing(into: Record<string, unknown>, from: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(from)) {
    const present = into[key];
    if (!(key in into)) into[key] = value;
    else if (isObject(present) && isObject(value)) addMissing(present, value);
    else if (Array.isArray(present) && Array.isArray(value))
      for (let i = 0; i < Math.min(present.length, value.length); i++) {
        const a: unknown = present[i];
        const b: unknown = value[i];
        if (isObject(a) && isObject(b)) addMissing(a, b);
      }
  }
  return into;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
