// Telling a player whose page is in the background that it is his turn:
// the tab's title says so until the page is seen again, and a system
// notification appears if he allowed them. A page in front needs none of
// this: the turn is in plain view and the focus moves to it.

const TURN_TITLE = '● Your turn — Spades';

let plainTitle = null;

function restore(doc) {
  if (plainTitle !== null && !doc.hidden) {
    doc.title = plainTitle;
    plainTitle = null;
  }
}

/**
 * The turn of this seat began while `doc` may be hidden: marks the title
 * and notifies. Returns whether the page was in the background.
 */
export function alertTurn(doc, what, { notify = true } = {}) {
  if (!doc.hidden) return false;
  if (plainTitle === null) {
    plainTitle = doc.title;
    doc.addEventListener('visibilitychange', function back() {
      if (doc.hidden) return;
      doc.removeEventListener('visibilitychange', back);
      restore(doc);
    });
  }
  doc.title = TURN_TITLE;
  const Notice = globalThis.Notification;
  if (notify && Notice && Notice.permission === 'granted') {
    try {
      const notice = new Notice('Your turn at Spades', { body: what, tag: 'spades-turn' });
      notice.onclick = () => {
        globalThis.focus?.();
        notice.close();
      };
    } catch {
      // Some browsers only notify from a service worker; the title still says it.
    }
  }
  return true;
}

export { TURN_TITLE };
