import { RemoteText } from './remote-text.js';

/**
 * A text response of the agent, as written (what a terminal would interpret shown as escapes).
 *
 * @example
 * <MessageText text="The plan was cancelled." />
 */
export function MessageText({ text }: { text: string }) {
  return <RemoteText text={text} />;
}
