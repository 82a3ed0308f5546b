import { Text } from 'ink';

/**
 * A short line from the REPL itself: "Cancelled.", an unknown command.
 *
 * @example
 * <InfoLine text="Cancelled." />
 */
export function InfoLine({ text }: { text: string }) {
  return <Text color="yellow">{text}</Text>;
}
