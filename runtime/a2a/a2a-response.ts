import type { A2AChunk } from './a2a-chunk.js';

/** What `A2AResponse.outcome` says when no chunk carried data or text. */
export const NO_RESPONSE = 'no response';

/**
 * One response of an agent-to-agent call: its `data` (a result artifact) or
 * its `text` (a text artifact, a message, or the final prompt or failure
 * text). Progress statuses are not responses.
 */
export class A2AResponse {
  readonly data: Readonly<Record<string, unknown>> | undefined;
  readonly text: string | undefined;

  constructor(options: { data?: Readonly<Record<string, unknown>>; text?: string }) {
    this.data = options.data;
    this.text = options.text;
  }

  /**
   * The responses among the chunks of a call, in order.
   *
   * @example
   * const chunks = [];
   * for await (const chunk of agentConnection(planner, executor, 'Book the room')) chunks.push(chunk);
   * const outcome = A2AResponse.outcome(A2AResponse.fromResults(chunks));
   */
  static fromResults(chunks: Iterable<A2AChunk>): A2AResponse[] {
    const responses: A2AResponse[] = [];
    for (const chunk of chunks) {
      const isProgress = (chunk.kind === 'status' || chunk.kind === 'task') && (chunk.state === 'working' || chunk.state === 'submitted');
      if (isProgress) continue;
      if (chunk.data === undefined && chunk.text === undefined) continue;
      responses.push(new A2AResponse({ ...(chunk.data === undefined ? {} : { data: chunk.data }), ...(chunk.text === undefined ? {} : { text: chunk.text }) }));
    }
    return responses;
  }

  /**
   * The spec's outcome rule: the first response with `data` gives its
   * `outcome` key (or the data as a string), else the first with `text`,
   * else "no response".
   */
  static outcome(responses: readonly A2AResponse[]): string {
    const withData = responses.find((response) => response.data !== undefined);
    if (withData?.data) {
      const outcome = withData.data.outcome;
      if (outcome !== undefined) return typeof outcome === 'string' ? outcome : JSON.stringify(outcome);
      return JSON.stringify(withData.data);
    }
    return responses.find((response) => response.text !== undefined)?.text ?? NO_RESPONSE;
  }
}
