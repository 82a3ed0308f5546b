import type { SessionNotice } from '../chat-event.js';
import { RemoteText } from './remote-text.js';

/**
 * A dim notice about the session itself: started, resumed, renewed after expiry, or none.
 *
 * @example
 * <SessionLine notice={{ type: 'session', status: 'started', text: 'Started a new session with http://127.0.0.1:8100.' }} />
 */
export function SessionLine({ notice }: { notice: SessionNotice }) {
  return <RemoteText dimColor text={notice.text} />;
}
