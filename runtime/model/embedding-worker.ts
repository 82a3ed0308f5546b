/**
 * The embedding worker thread: loads a `BertEncoder` once from the files in
 * `workerData` and answers each `{ sequences }` message with
 * `{ type: 'result', embeddings }` (or `{ type: 'error', message }`), one at a
 * time. Started by `EncoderWorker`; not imported by anything else.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { BertEncoder } from './bert-encoder.js';
import type { EncoderReply, EncoderRequest } from './encoder-worker.js';

const port = parentPort;
if (!port) throw new Error('embedding-worker.js runs as a worker thread');
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
try {
  const encoder = await BertEncoder.load(workerData as { weights: string; config: string });
  port.on('message', (request: EncoderRequest) => {
    let reply: EncoderReply;
    try {
      reply = { type: 'result', embeddings: encoder.embedBatch(request.sequences) };
    } catch (error) {
      reply = { type: 'error', message: message(error) };
    }
    port.postMessage(reply, reply.type === 'result' ? reply.embeddings.map((e) => e.buffer as ArrayBuffer) : []);
  });
  port.postMessage({ type: 'ready' } satisfies EncoderReply);
} catch (error) {
  port.postMessage({ type: 'failed', message: message(error) } satisfies EncoderReply);
}
