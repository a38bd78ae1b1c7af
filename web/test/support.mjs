// Shared by the tests: recorded sessions, protocol.md's example session,
// a fake WebSocket and a fake clock. This file holds no tests itself.

import { readFileSync } from 'node:fs';

const here = new URL('.', import.meta.url);

/** A recorded session: the player's id and the messages he received, in order. */
export function loadSession(name) {
  const lines = readFileSync(new URL(`fixtures/${name}`, here), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  return { me: lines[0].me, messages: lines.slice(1) };
}

export function readFixture(name) {
  return readFileSync(new URL(`fixtures/${name}`, here), 'utf8');
}

/** A document of the repository, such as protocol.md. */
export function readDoc(path) {
  return readFileSync(new URL(`../../${path}`, here), 'utf8');
}

/**
 * The messages North received in protocol.md's example session, read from
 * the document itself so that the test follows it if it changes.
 */
export function exampleSession() {
  const doc = readDoc('protocol.md');
  const start = doc.indexOf('## An example session');
  const section = doc.slice(start);
  const received = [];
  for (const line of section.split('\n')) {
    const match = /^<- (\{.*\})\s*$/.exec(line.trim());
    if (match) received.push(JSON.parse(match[1]));
  }
  const welcome = received.find((m) => m.type === 'welcome');
  return { me: welcome.player.id, messages: received };
}

/** A clock and timers that move only when the test says so. */
export class FakeClock {
  constructor() {
    this.time = 1_000_000;
    this.timers = [];
    this.nextHandle = 1;
    this.now = () => this.time;
    this.setTimeout = (fn, ms) => {
      const handle = this.nextHandle++;
      this.timers.push({ handle, at: this.time + ms, fn });
      return handle;
    };
    this.clearTimeout = (handle) => {
      this.timers = this.timers.filter((t) => t.handle !== handle);
    };
  }

  /** Moves time on, running every timer that falls due on the way, in order. */
  advance(ms) {
    const end = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.fn();
    }
    this.time = end;
  }

  pending() {
    return this.timers.map((t) => t.at - this.time);
  }
}

/** A WebSocket whose server side the test plays. Every instance is kept in `sockets`. */
export function fakeWebSocketClass() {
  const sockets = [];
  class FakeWebSocket {
    constructor(url) {
      this.url = url;
      this.readyState = 0;
      this.sent = [];
      this.closedWith = null;
      sockets.push(this);
    }

    send(data) {
      if (this.readyState !== 1) throw new Error('not open');
      this.sent.push(JSON.parse(data));
    }

    close(code = 1000) {
      this.closedWith = code;
      this.readyState = 3;
    }

    // The server's side.
    open() {
      this.readyState = 1;
      this.onopen?.({});
    }

    receive(message) {
      this.onmessage?.({ data: JSON.stringify(message) });
    }

    serverClose(code) {
      this.readyState = 3;
      this.onclose?.({ code, reason: '' });
    }

    last(type) {
      return [...this.sent].reverse().find((m) => m.type === type);
    }
  }
  return { FakeWebSocket, sockets };
}

export function memoryStorage(initial = {}) {
  const items = new Map(Object.entries(initial));
  return {
    items,
    getItem: (key) => (items.has(key) ? items.get(key) : null),
    setItem: (key, value) => items.set(key, String(value)),
    removeItem: (key) => items.delete(key),
  };
}
