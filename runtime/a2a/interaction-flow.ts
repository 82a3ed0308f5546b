import type { AgentCard } from '@a2a-js/sdk';
import { FrameworkError } from '../core/framework-error.js';
import type { A2AChunk } from './a2a-chunk.js';
import { agentConnection, type AgentConnectionOptions } from './agent-connection.js';

/** Length of a node's default label: the first 40 characters of its action. */
export const NODE_LABEL_LENGTH = 40;

/** One A2A hop of a workflow: send `task` (plain action text) from the source agent to the target agent. */
export class InteractionFlowNode {
  readonly task: string;
  readonly sourceAgentCard: AgentCard | undefined;
  readonly targetAgentCard: AgentCard;
  readonly nodeKey: string;
  readonly nodeLabel: string;

  constructor(options: { task: string; targetAgentCard: AgentCard; sourceAgentCard?: AgentCard; nodeKey?: string; nodeLabel?: string }) {
    if (typeof options.task !== 'string' || options.task.trim() === '') throw new TypeError('InteractionFlowNode needs a non-empty task (the action text).');
    this.task = options.task;
    this.sourceAgentCard = options.sourceAgentCard;
    this.targetAgentCard = options.targetAgentCard;
    this.nodeKey = options.nodeKey ?? options.targetAgentCard.name;
    this.nodeLabel = options.nodeLabel ?? Array.from(options.task).slice(0, NODE_LABEL_LENGTH).join('');
  }
}

/** A chunk of a workflow run: the hop's chunk, with the node it came from. */
export interface FlowChunk extends A2AChunk {
  nodeKey: string;
  nodeLabel: string;
}

/**
 * A sequence of A2A hops run one after another. Each node is validated
 * (policy check, then signature) right before it runs, so a denied node
 * stops the flow with `PermissionError` before anything is sent to it.
 *
 * @example
 * const flow = new AgentInteractionFlow().setSourceCard(planner);
 * flow.addNode(new InteractionFlowNode({ task: 'Book the room', targetAgentCard: executor }));
 * for await (const chunk of flow.runWorkflow()) console.log(chunk.nodeLabel, chunk.kind, chunk.text);
 */
export class AgentInteractionFlow {
  #sourceCard: AgentCard | undefined;
  readonly #nodes: InteractionFlowNode[] = [];
  readonly #options: AgentConnectionOptions;

  constructor(options: AgentConnectionOptions = {}) {
    this.#options = options;
  }

  /** The calling agent's card; required before `runWorkflow`. */
  setSourceCard(card: AgentCard): this {
    this.#sourceCard = card;
    return this;
  }

  addNode(node: InteractionFlowNode): this {
    this.#nodes.push(node);
    return this;
  }

  get nodes(): readonly InteractionFlowNode[] {
    return this.#nodes;
  }

  async *runWorkflow(): AsyncGenerator<FlowChunk, void, undefined> {
    const flowSource = this.#sourceCard;
    if (flowSource === undefined) {
      throw new FrameworkError({ code: 'invalid_request', message: 'AgentInteractionFlow has no source card: call setSourceCard(card) before runWorkflow().' });
    }
    for (const node of this.#nodes) {
      const source = node.sourceAgentCard ?? flowSource;
      for await (const chunk of agentConnection(source, node.targetAgentCard, node.task, this.#options)) {
        yield { ...chunk, nodeKey: node.nodeKey, nodeLabel: node.nodeLabel };
      }
    }
  }
}
