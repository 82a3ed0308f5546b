import { Box, Text } from 'ink';
import { assertNever } from '../../runtime/core/assert-never.js';
import { resultViewOf } from '../result-view.js';
import { RemoteText } from './remote-text.js';

/**
 * A result of the agent, shown the way its shape suggests: an answer with its
 * sources, the actions of a plan with their outcomes ("1. action → outcome"),
 * or pretty-printed JSON.
 *
 * @example
 * <ResultBlock data={{ actions: ['book flights'], outcomes: ['Done: book flights'] }} />
 */
export function ResultBlock({ data }: { data: Readonly<Record<string, unknown>> }) {
  const view = resultViewOf(data);
  switch (view.kind) {
    case 'answer':
      return (
        <Box flexDirection="column">
          <RemoteText text={view.answer} />
          {view.sources.length > 0 ? <Text dimColor>Sources:</Text> : null}
          {view.sources.map((source, i) => (
            <Text key={i} dimColor>
              {'  '}- <RemoteText text={source} singleLine />
            </Text>
          ))}
        </Box>
      );
    case 'actions':
      return (
        <Box flexDirection="column">
          <Text bold>Result:</Text>
          {view.rows.map((row, i) => (
            <Text key={i}>
              {'  '}
              {i + 1}. <RemoteText text={row.action} singleLine /> <Text color="green">→</Text> <RemoteText text={row.outcome} singleLine />
            </Text>
          ))}
        </Box>
      );
    case 'json':
      return <RemoteText text={view.json} />;
    default:
      return assertNever(view);
  }
}
