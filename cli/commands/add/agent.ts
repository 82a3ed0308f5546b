import { Args, Flags } from '@oclif/core';
import { DEFAULT_CHAT_MODEL } from '../../../runtime/core/defaults.js';
import { FrameworkError } from '../../../runtime/core/framework-error.js';
import { toolChoiceHint } from '../../../runtime/model/tool-choice-hint.js';
import type { AddAgentSummary, TaskAnswer } from '../../../runtime/scaffold/add-agent.js';
import type { SkillAnswer } from '../../../runtime/scaffold/agent-card-file.js';
import { ScaffoldCommand } from '../../scaffold-command.js';
import { projectCliCommand } from '../../../runtime/supervisor/project-cli-command.js';

export default class AddAgent extends ScaffoldCommand {
  static override description =
    'Add an agent to a project: agents/<name>/ (app.ts, agent-<name>.ts, steps.ts, tasks.ts, tools.ts, prompts.ts, config/config.ts, main.ts, Dockerfile, and web-interface.ts with --with-web-interface), its card, an A2A key, and its service in .framework/project.json and compose.yaml (next free port from 8002). ' +
    'Without --task/--skill it asks for tasks and skills on a terminal (an empty name ends each list); --no-interactive gives one task "answer" and no skills.';

  static override examples = [
    '<%= config.bin %> add agent helper --description "Answers questions"',
    '<%= config.bin %> add agent helper --description "Answers questions" --task greet:"Greets the user" --skill "Greeting:Says hello" --no-interactive --json',
    '<%= config.bin %> add agent assistant --description "Chat assistant" --with-web-interface --dir projects/demo',
  ];

  static override args = {
    name: Args.string({ description: 'agent name: lower-case letters, digits, "_", "-", starting with a letter', required: true, ignoreStdin: true }),
  };

  static override flags = {
    description: Flags.string({ description: 'what the agent does (its card and system prompt)', required: true }),
    'with-web-interface': Flags.boolean({ description: 'also generate web-interface.ts: the full front door with the chat web interface API', default: false }),
    task: Flags.string({ description: 'a task, as name:description (repeatable)', multiple: true, multipleNonGreedy: true }),
    skill: Flags.string({ description: 'a skill for the agent card, as name:description (repeatable)', multiple: true, multipleNonGreedy: true }),
    interactive: Flags.boolean({ description: 'ask for tasks and skills when none are given (--no-interactive: never ask)', default: true, allowNo: true }),
    dir: Flags.string({ char: 'd', description: 'project root (default: the current folder)', default: '.' }),
  };

  async run(): Promise<AddAgentSummary> {
    const { args, flags } = await this.parse(AddAgent);
    const summary = await this.scaffold(async () => {
      const [{ addAgent }, { parseNamedPair, promptAgentAnswers }] = await Promise.all([
        import('../../../runtime/scaffold/add-agent.js'),
        import('../../../runtime/scaffold/agent-answers.js'),
      ]);
      let tasks: TaskAnswer[] = (flags.task ?? []).map((value) => parseNamedPair({ value, flag: '--task' }));
      let skills: SkillAnswer[] = (flags.skill ?? []).map((value) => parseNamedPair({ value, flag: '--skill' }));
      if (tasks.length === 0 && skills.length === 0 && flags.interactive) {
        if (!process.stdin.isTTY) {
          throw new FrameworkError({
            code: 'invalid_request',
            message:
              'No tasks or skills were given and standard input is not a terminal, so they cannot be asked for: pass --task name:description (and --skill name:description), or --no-interactive for one task "answer".',
          });
        }
        // Under --json the questions go to standard error, so standard output stays one JSON document.
        ({ tasks, skills } = await promptAgentAnswers({ input: process.stdin, output: this.jsonEnabled() ? process.stderr : process.stdout }));
      }
      return addAgent({ root: flags.dir, name: args.name, description: flags.description, tasks, skills, withWebInterface: flags['with-web-interface'] });
    });
    this.report([
      `Added agent "${summary.agent}" on port ${summary.port} with task(s) ${summary.tasks.join(', ')}.`,
      ...summary.created.map((file) => `  created ${file}`),
      ...summary.updated.map((file) => `  updated ${file}`),
      `Run it alone: npm run build && ${projectCliCommand({ root: summary.root })} serve agent --module dist/agents/${summary.agent}/app.js --port ${summary.port}`,
      `Or the whole stack: ${projectCliCommand({ root: summary.root })} up, then ${projectCliCommand({ root: summary.root })} chat ${summary.agent}`,
      // The agent runs on the default local model (MODEL_NAME), which never chooses its tools.
      ...[toolChoiceHint({ model: DEFAULT_CHAT_MODEL, agent: summary.agent })].filter((hint) => hint !== undefined).map((hint) => `Note: ${hint}`),
    ]);
    return summary;
  }
}
