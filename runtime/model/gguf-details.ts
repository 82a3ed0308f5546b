import { open } from 'node:fs/promises';
import { loadLlamaCpp } from './llama-runtime.js';
import { ModelRequestError } from './model-request-error.js';

/** What `/api/show` and `/api/tags` report of a GGUF file, from its header. */
export interface GgufDetails {
  family?: string;
  parameterSize?: string;
  quantization?: string;
}

/**
 * Checks that `path` is a GGUF file (its magic) and reads its architecture,
 * size label and file type through node-llama-cpp's header reader (the
 * tensors are not read). Not a GGUF file: a 400 with Ollama's wording.
 */
export async function readGgufDetails(path: string): Promise<GgufDetails> {
  const handle = await open(path, 'r');
  try {
    const magic = Buffer.alloc(4);
    await handle.read(magic, 0, 4, 0);
    if (magic.toString('latin1') !== 'GGUF') throw new ModelRequestError({ status: 400, message: 'supplied file was not in GGUF format' });
  } finally {
    await handle.close();
  }
  // Loaded on use, so importing the toolkit does not load node-llama-cpp; missing, a 503 naming its install command.
  const { readGgufFileInfo, GgufFileType } = await loadLlamaCpp();
  try {
    const general = (await readGgufFileInfo(path, { readTensorInfo: false })).metadata.general;
    const fileType = general.file_type === undefined ? undefined : GgufFileType[general.file_type];
    return {
      ...(general.architecture ? { family: String(general.architecture) } : {}),
      ...(general.size_label ? { parameterSize: general.size_label } : {}),
      ...(fileType ? { quantization: fileType.replace(/^MOSTLY_/, '') } : {}),
    };
  } catch (error) {
    throw new ModelRequestError({ status: 400, message: `supplied file was not in GGUF format: ${(error as Error).message}`, cause: error });
  }
}
