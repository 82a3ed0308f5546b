#!/usr/bin/env node
// Writes docs/cli.md, the command reference, from oclif.manifest.json: the same descriptions,
// arguments, flags and examples that `framework-cli <command> --help` prints, so the reference
// cannot drift from the CLI. `npm run docs:cli` writes it (after `npm run build`, which makes
// the manifest); `npm run docs:check` fails when the committed file differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = 'framework-cli';
// oclif's own `help` (from its plugin, bundled with our commands by scripts/bundle-cli.mjs): not ours to document.
const OCLIF_COMMANDS = new Set(['help']);

const cell = (text) =>
  String(text ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ');
const example = (text) => text.replaceAll('<%= config.bin %>', BIN).replaceAll('<%= command.id %>', '');

function flagName(flag) {
  const long = flag.type === 'boolean' && flag.allowNo ? `--[no-]${flag.name}` : `--${flag.name}`;
  return flag.char === undefined ? long : `-${flag.char}, ${long}`;
}

function flagValue(flag) {
  if (flag.type === 'boolean') return '';
  const value = flag.options === undefined ? '<value>' : flag.options.join('\\|');
  return flag.multiple ? `${value}…` : value;
}

function usage(command) {
  const words = [BIN, ...command.id.split(':')];
  for (const arg of Object.values(command.args ?? {})) {
    words.push(arg.required ? arg.name.toUpperCase() : `[${arg.name.toUpperCase()}]`);
  }
  for (const flag of Object.values(command.flags ?? {})) {
    if (flag.hidden || flag.helpGroup === 'GLOBAL') continue;
    const text = `${flag.char === undefined ? `--${flag.name}` : `-${flag.char}`}${flag.type === 'boolean' ? '' : ' <value>'}`;
    if (flag.required) words.push(text);
  }
  words.push('[FLAGS]');
  return words.join(' ');
}

function renderCommand(command) {
  const out = [`### \`${BIN} ${command.id.replaceAll(':', ' ')}\``, ''];
  if (command.description) out.push(command.description.trim(), '');
  out.push('```', usage(command), '```', '');
  const args = Object.values(command.args ?? {});
  if (args.length > 0) {
    out.push('| Argument | Required | Description |', '|---|---|---|');
    for (const arg of args) out.push(`| \`${arg.name}\` | ${arg.required ? 'yes' : 'no'} | ${cell(arg.description)} |`);
    out.push('');
  }
  const flags = Object.values(command.flags ?? {}).filter((flag) => !flag.hidden);
  if (flags.length > 0) {
    out.push('| Flag | Value | Default | Description |', '|---|---|---|---|');
    for (const flag of flags) {
      const fallback = flag.default === undefined || flag.default === false ? '' : `\`${cell(JSON.stringify(flag.default))}\``;
      const value = flagValue(flag);
      out.push(
        `| \`${flagName(flag)}\` | ${value === '' ? '' : `\`${value}\``} | ${fallback} | ${cell(flag.description)}${flag.required ? ' (required)' : ''} |`,
      );
    }
    out.push('');
  }
  if (command.aliases?.length > 0) out.push(`Aliases: ${command.aliases.map((a) => `\`${BIN} ${a.replaceAll(':', ' ')}\``).join(', ')}`, '');
  const examples = (command.examples ?? []).map((e) => (typeof e === 'string' ? e : e.command));
  if (examples.length > 0) out.push('Examples:', '', '```sh', ...examples.map(example), '```', '');
  return out.join('\n');
}

/** The text of docs/cli.md for the manifest under `root`. */
export function renderCliReference(root) {
  const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'));
  const commands = Object.values(manifest.commands)
    .filter((command) => !command.hidden && !OCLIF_COMMANDS.has(command.id))
    .sort((a, b) => a.id.localeCompare(b.id));
  const topics = new Map();
  for (const command of commands) {
    const topic = command.id.includes(':') ? command.id.split(':')[0] : '';
    topics.set(topic, [...(topics.get(topic) ?? []), command]);
  }
  const out = [
    '# Command reference',
    '',
    `<!-- Generated from oclif.manifest.json by \`npm run docs:cli\`; \`npm run docs:check\` fails when it is stale. Do not edit by hand. -->`,
    '',
    `Every command takes \`--json\`: one JSON document on stdout (NDJSON events for \`serve *\` and attached \`up\`), errors as \`{"error": {"code", "message", "exit"}}\` with a non-zero exit code. Usage errors exit 2. An argument left off the command line is missing, never read from piped standard input (as oclif would otherwise do); \`policy fmt\` and \`model run\` read standard input as their own input, as their pages say. \`${BIN} <command> --help\` prints the same text as this page.`,
    '',
    '| Command | What it does |',
    '|---|---|',
    ...commands.map(
      (command) =>
        `| [\`${command.id.replaceAll(':', ' ')}\`](#${`${BIN} ${command.id.replaceAll(':', ' ')}`.replace(/[^\w\s-]/g, '').replace(/\s/g, '-')}) | ${cell((command.summary ?? command.description ?? '').split(/\n|(?<=\.)\s/)[0])} |`,
    ),
    '',
  ];
  for (const [topic, list] of topics) {
    out.push(`## ${topic === '' ? 'Stack and chat' : `\`${topic}\``}`, '');
    for (const command of list) out.push(renderCommand(command));
  }
  return `${out.join('\n').trimEnd()}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  writeFileSync(join(root, 'docs', 'cli.md'), renderCliReference(root));
  console.log('docs/cli.md written');
}
