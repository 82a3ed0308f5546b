import { Args, Flags, ux } from '@oclif/core';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import type { ResolvedAgent } from '../../repl/resolve-agent-url.js';
import { toolChoiceHint } from '../../runtime/model/tool-choice-hint.js';
import type { ChatScriptAction } from '../../repl/run-chat-script.js';
import { reverseVideo, terminalJson } from '../../runtime/core/terminal-text.js';
import { JsonCommand } from '../json-command.js';

/** The last line of `chat --json` (and what `run()` returns): how the exchange ended. */
export interface ChatDone {
  event: 'done';
  data: {
    status: 'ok' | 'error';
    agent: string;
    events: number;
    awaiting_input: boolean;
    context_id?: string;
    plan_id?: string;
  };
}

export default class Chat extends JsonCommand {
  static override description =
    'Chat with an agent: an interactive terminal REPL that streams its events, shows plans as cards and sends approve (a), reject (r) or modify (m). ' +
    'With --message, --approve, --reject or --modify it runs one exchange without the REPL (--json: one JSON line per event). ' +
    'The session token is saved per agent URL (file mode 0600 in the configuration directory) and reused; an expired one is renewed.';

  static override examples = [
    '<%= config.bin %> chat',
    '<%= config.bin %> chat planner',
    '<%= config.bin %> chat http://127.0.0.1:8100 --new-session',
    '<%= config.bin %> chat http://127.0.0.1:8100 --message "organise a team offsite; book a venue" --json',
    '<%= config.bin %> chat http://127.0.0.1:8100 --modify "add a budget review step" --json',
    '<%= config.bin %> chat http://127.0.0.1:8100 --approve --json',
  ];

  static override args = {
    agent: Args.string({
      description: 'agent URL, or the name of an agent of the current project (default: the tutorial planner at http://127.0.0.1:8100)',
      ignoreStdin: true,
    }),
  };

  static override jsonLines = true;

  static override flags = {
    message: Flags.string({ char: 'm', description: 'send this message and print the events, without the REPL', exclusive: ['approve', 'reject', 'modify'] }),
    approve: Flags.boolean({ description: 'approve the plan pending on the saved session', exclusive: ['message', 'reject', 'modify', 'new-session'] }),
    reject: Flags.boolean({ description: 'reject the plan pending on the saved session', exclusive: ['message', 'approve', 'modify', 'new-session'] }),
    modify: Flags.string({
      description: 'ask for these changes to the plan pending on the saved session',
      exclusive: ['message', 'approve', 'reject', 'new-session'],
    }),
    'new-session': Flags.boolean({ description: 'start a new session instead of reusing the saved one' }),
  };

  async run(): Promise<ChatDone | undefined> {
    const { args, flags } = await this.parse(Chat);
    const [
      { chatEventToJson, chatEventToText },
      { ChatSession },
      { describeChatError },
      { findProjectRoot, resolveAgentUrl },
      { loadProject },
      { runChatScript },
      { SessionTokenStore },
    ] = await Promise.all([
      import('../../repl/chat-event-output.js'),
      import('../../repl/chat-session.js'),
      import('../../repl/describe-chat-error.js'),
      import('../../repl/resolve-agent-url.js'),
      import('../../runtime/supervisor/load-project.js'),
      import('../../repl/run-chat-script.js'),
      import('../../repl/session-token-store.js'),
    ]);
    let agent: ResolvedAgent;
    try {
      agent = resolveAgentUrl({ ...(args.agent === undefined ? {} : { agent: args.agent }), cwd: process.cwd() });
    } catch (error) {
      if (FrameworkError.isInstance(error)) this.error(error.message, { exit: error.code === 'invalid_arguments' ? 2 : 1, code: error.code });
      throw error;
    }
    const store = new SessionTokenStore({ dir: this.config.configDir });
    const session = new ChatSession({ agentUrl: agent.url, store });
    const action = scriptAction(flags);
    if (action?.kind === 'message' && action.text.trim() === '')
      this.error('--message is empty; say what you want the agent to do.', { exit: 2, code: 'invalid_arguments' });
    if (action?.kind === 'modify' && action.changes?.trim() === '')
      this.error('--modify is empty; say what to change in the plan.', { exit: 2, code: 'invalid_arguments' });

    // The first turn with a project agent on a model that never chooses a tool says so, with the fix.
    const hint = this.jsonEnabled() || (await store.get(agent.url)) ? undefined : agentToolHint({ agent, findProjectRoot, loadProject });
    if (hint) this.logToStderr(`Note: ${hint}`);

    if (!action) {
      if (this.jsonEnabled()) {
        this.error('--json needs --message, --approve, --reject or --modify (the REPL is for people).', { exit: 2, code: 'invalid_arguments' });
      }
      if (!process.stdin.isTTY || !process.stdout.isTTY) {
        this.error('The chat REPL needs a terminal. In a script, pass --message "..." (and --json for one JSON line per event).', {
          exit: 2,
          code: 'not_a_terminal',
        });
      }
      const { runInteractiveChat } = await import('../../repl/run-interactive-chat.js');
      await runInteractiveChat({ session, forceNew: flags['new-session'] });
      return undefined;
    }

    if (action.kind !== 'message') {
      const saved = await store.get(agent.url);
      if (!saved) {
        this.error(
          `There is no saved session with ${agent.url} to send a plan decision on. Send a message first: framework-cli chat ${agent.url} --message "..."`,
          {
            exit: 1,
            code: 'no_saved_session',
          },
        );
      }
      // Nothing asked for a decision on this session (no plan, no tool call waiting): there is nothing to --approve, --reject or --modify.
      if (saved.awaiting_input !== true && !saved.approval_id) {
        this.error(
          `Nothing is waiting for a decision on your session with ${agent.url}: its last answer proposed no plan and asked for no approval, so --${action.kind} has nothing to act on. Send a request first: framework-cli chat ${agent.url} --message "..."`,
          { exit: 1, code: 'nothing_pending' },
        );
      }
    }

    const json = this.jsonEnabled();
    // The agent's escapes in reverse video on a terminal; plain in a pipe or a file.
    const highlight = process.stdout.isTTY === true && (process.env.NO_COLOR ?? '') === '' ? { highlight: reverseVideo } : {};
    let outcome;
    try {
      outcome = await runChatScript({
        session,
        action,
        forceNew: flags['new-session'],
        onEvent: (event) => ux.stdout(json ? terminalJson(chatEventToJson(event)) : chatEventToText(event, highlight)),
      });
    } catch (error) {
      const described = describeChatError(error, agent.url);
      const hint =
        agent.source === 'default' && described.code === 'agent_not_ready'
          ? `Nothing answers at chat's default agent (the tutorial planner): start it with framework-cli up --example tutorial, run chat from the folder of the stack you started (it finds that stack's agent), or name the agent: chat <name> or chat <url>.`
          : described.hint;
      this.error(`${described.message} ${hint}`.trim(), { exit: 1, code: described.code });
    }
    if (outcome.error) process.exitCode = 1;
    const done: ChatDone = {
      event: 'done',
      data: {
        status: outcome.error ? 'error' : 'ok',
        agent: agent.url,
        events: outcome.events,
        awaiting_input: outcome.awaitingInput,
        ...(session.contextId ? { context_id: session.contextId } : {}),
        ...(session.planId ? { plan_id: session.planId } : {}),
      },
    };
    return done;
  }
}

function scriptAction(flags: { message?: string; approve: boolean; reject: boolean; modify?: string }): ChatScriptAction | undefined {
  if (flags.message !== undefined) return { kind: 'message', text: flags.message };
  if (flags.approve) return { kind: 'approve' };
  if (flags.reject) return { kind: 'reject' };
  if (flags.modify !== undefined) return { kind: 'modify', changes: flags.modify };
  return undefined;
}

/** The tool-choice hint for a project agent whose MODEL_NAME never chooses a tool; undefined when unknown. */
function agentToolHint(options: {
  agent: ResolvedAgent;
  findProjectRoot: typeof import('../../repl/resolve-agent-url.js').findProjectRoot;
  loadProject: typeof import('../../runtime/supervisor/load-project.js').loadProject;
}): string | undefined {
  const { agent, findProjectRoot, loadProject } = options;
  if (!agent.name) return undefined;
  const root = findProjectRoot(process.cwd());
  if (!root) return undefined;
  try {
    const service = loadProject({ root }).services.find((s) => s.kind === 'agent' && s.name === agent.name);
    return toolChoiceHint({ model: service?.env.MODEL_NAME, agent: agent.name });
  } catch {
    // A project file that cannot be read was reported when the agent was looked up; no hint then.
    return undefined;
  }
}
