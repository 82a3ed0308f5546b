/**
 * GraphQL validation cost: graphql.parse on queries with no error, one and
 * several errors, each text made unique so the verdict cache never answers.
 * Runs this build's builtins and a baseline's (BEFORE, default /work/base/dist:
 * main's build, where graphql-js's rules validated) in interleaved rounds in
 * one process and prints the median CPU time (process.cpuUsage, user and
 * system) per call of each side, and their ratio.
 *
 *   npm run build && node dist/bench/graphql.js      (BENCH_ROUNDS=6 BENCH_CALLS=2000)
 *
 * Prints figures; asserts nothing.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BuiltinDefinition } from '../runtime/policy/builtins/registry.js';

const BEFORE = process.env.BEFORE ?? '/work/base/dist';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);

const SCHEMA = `type Query { hero(episode: Episode = NEWHOPE): Character droid(id: ID!): Droid search(text: String!, first: Int = 10): [SearchResult!]! }
enum Episode { NEWHOPE EMPIRE JEDI }
interface Character { id: ID! name: String! friends(first: Int): [Character] }
type Human implements Character { id: ID! name: String! friends(first: Int): [Character] height(unit: Unit = METER): Float }
type Droid implements Character { id: ID! name: String! friends(first: Int): [Character] primaryFunction: String }
enum Unit { METER FOOT }
union SearchResult = Human | Droid`;

const QUERIES: Array<[label: string, query: string]> = [
  [
    'valid',
    'query Hero($ep: Episode = JEDI, $n: Int) { hero(episode: $ep) { id name friends(first: $n) { name ... on Human { height(unit: FOOT) } } ...D } } fragment D on Droid { primaryFunction }',
  ],
  ['one error', '{ hero { id name friends { nmae } } droid(id: "2001") { name } }'],
  [
    'several errors',
    'query Q($u: Int, $ep: Episode) { hero(episode: MARS) { nope name name: id ...U } droid { ...F } search(text: 1) { ... on Droid { id: name } } } fragment F on Droid { primaryFunction } fragment G on Character { id }',
  ],
];

type Call = (query: string) => void;

async function loadParse(dist: string): Promise<Call> {
  const mod = (await import(pathToFileURL(join(dist, 'runtime/policy/builtins/graphql.js')).href)) as { graphqlBuiltins: BuiltinDefinition[] };
  const parse = mod.graphqlBuiltins.find((b) => b.name === 'graphql.parse');
  if (parse === undefined) throw new Error(`no graphql.parse in ${dist}`);
  return (query) => {
    try {
      parse.impl([query, SCHEMA], {} as never);
    } catch {
      // A refused query is an answer too: its error text is built either way.
    }
  };
}

/** CPU microseconds per call over `CALLS` calls, each on a text of its own. */
function measure(call: Call, query: string, round: number): number {
  const before = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) call(`${query}\n# ${round} ${i}`);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / CALLS;
}

async function main(): Promise<void> {
  const after = await loadParse(join(import.meta.dirname, '..'));
  const haveBefore = existsSync(join(BEFORE, 'runtime/policy/builtins/graphql.js'));
  const before = haveBefore ? await loadParse(BEFORE) : undefined;
  console.log(
    `GraphQL graphql.parse CPU per call: ${ROUNDS} interleaved rounds of ${CALLS} calls${haveBefore ? `, before = ${BEFORE}` : ' (no baseline found)'}`,
  );
  for (const [label, query] of QUERIES) {
    // Warm both (graphql-js loads at the first call).
    for (let i = 0; i < 200; i++) {
      after(`${query}\n# w${i}`);
      before?.(`${query}\n# w${i}`);
    }
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      a.push(measure(after, query, r));
      if (before !== undefined) b.push(measure(before, query, r));
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? Number.NaN;
    const ma = median(a);
    const mb = median(b);
    console.log(
      `${label.padEnd(16)} after ${ma.toFixed(1).padStart(7)} µs` +
        (before === undefined ? '' : `   before ${mb.toFixed(1).padStart(7)} µs   after/before ${(ma / mb).toFixed(2)}`),
    );
  }
  const load = (await import('node:os')).loadavg();
  console.log(`load average ${load.map((l) => l.toFixed(2)).join(' ')}`);
}

await main();
