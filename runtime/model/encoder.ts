/** Something that turns token sequences into sentence embeddings: in this thread, or in a worker. */
export interface Encoder {
  /** One L2-normalised vector per sequence; rejects with `signal.reason` if it fires before the work starts. */
  embed(sequences: number[][], signal?: AbortSignal): Promise<Float32Array[]>;
  /** Frees the encoder; pending requests reject. */
  close(): void;
}
