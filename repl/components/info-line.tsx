import { RemoteText } from './remote-text.js';

/**
 * A short line from the REPL itself: "Cancelled.", an unknown command.
 *
 * @example
 * <InfoLine text="Cancelled." />
 */
export function InfoLine({ text }: { text: string }) {
  return <RemoteText color="yellow" text={text} />;
}
