// The player's table preferences: sound, motion and turn notifications.
// Sound is remembered in localStorage; motion follows the system's
// "reduce motion", which also turns sound off until the player turns it
// on; a notification is shown only when the player allowed it, and the
// page asks only when he presses the button that says so.

const SOUND_KEY = 'spades.sound';

/** Whether the system asks for less motion. */
export function reducedMotion() {
  return Boolean(globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches);
}

/** The notifications' permission: `granted`, `denied`, `default`, or `unsupported`. */
export function notificationPermission() {
  return globalThis.Notification ? globalThis.Notification.permission : 'unsupported';
}

/**
 * The preferences as stored: sound on unless muted, or off by default
 * for someone who asked for less motion; motion on unless he did.
 */
export function loadPrefs(storage = globalThis.localStorage, reduced = reducedMotion()) {
  let stored = null;
  try {
    stored = storage?.getItem(SOUND_KEY) ?? null;
  } catch {
    // Storage can be refused (private windows): the defaults hold.
  }
  return {
    sound: stored === null ? !reduced : stored === 'on',
    motion: !reduced,
    notifications: notificationPermission(),
  };
}

/** Remembers whether sound is on. */
export function saveSound(on, storage = globalThis.localStorage) {
  try {
    storage?.setItem(SOUND_KEY, on ? 'on' : 'off');
  } catch {
    // Not remembered, but still in force for this page.
  }
}
