import { assertNever } from '../../runtime/core/assert-never.js';
import type { TranscriptItem } from '../transcript-item.js';
import { ErrorLine } from './error-line.js';
import { EventView } from './event-view.js';
import { HelpText } from './help-text.js';
import { InfoLine } from './info-line.js';
import { UserLine } from './user-line.js';

/**
 * One entry of the transcript: an event, a described failure, what the user
 * sent, a line of the REPL's own, or the help. `live` as in `EventView`.
 *
 * @example
 * <TranscriptEntry item={{ id: 3, kind: 'user', text: 'book flights' }} />
 */
export function TranscriptEntry({ item, live = false }: { item: TranscriptItem; live?: boolean }) {
  switch (item.kind) {
    case 'event':
      return <EventView event={item.event} live={live} />;
    case 'failure':
      return <ErrorLine message={item.error.message} hint={item.error.hint} />;
    case 'user':
      return <UserLine text={item.text} />;
    case 'info':
      return <InfoLine text={item.text} />;
    case 'help':
      return <HelpText />;
    default:
      return assertNever(item);
  }
}
