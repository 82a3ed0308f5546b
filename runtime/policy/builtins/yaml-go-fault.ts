/**
 * A refusal of go-yaml v2's reader, scanner, parser or composer, with the
 * marks go-yaml keeps, worded as go-yaml's `parser.fail` words it: a
 * scanner's line is its problem's (1-based), a parser's the 0-based line of
 * the token it stopped at, and no line is said when that number is 0
 * (`yaml: line 3: could not find expected ':'`, `yaml: did not find expected node content`).
 */
export interface Mark {
  index: number;
  line: number;
  column: number;
}

export interface GoYamlFaultInit {
  stage: 'reader' | 'scanner' | 'parser' | 'composer';
  problem: string;
  problemMark?: Mark;
  contextMark?: Mark;
}

export class GoYamlFault extends Error {
  readonly stage: GoYamlFaultInit['stage'];
  readonly problem: string;

  constructor(init: GoYamlFaultInit) {
    super(goYamlMessage(init));
    this.name = 'GoYamlFault';
    this.stage = init.stage;
    this.problem = init.problem;
  }
}

function goYamlMessage(init: GoYamlFaultInit): string {
  if (init.stage === 'composer') return `yaml: ${init.problem}`;
  const problemLine = init.problemMark?.line ?? 0;
  const line = problemLine !== 0 ? problemLine + (init.stage === 'scanner' ? 1 : 0) : (init.contextMark?.line ?? 0);
  return `yaml: ${line === 0 ? '' : `line ${line}: `}${init.problem}`;
}
