// The Client's room (see protocol.js, which puts the Client together):
// the room's events handed on in `seq` order, those that come ahead of a
// gap held until it fills, turns held until the event they follow, and
// `resync` after a gap or a reconnect. Built on the requests' class; the
// Client builds on this one.

import { STATUS } from './protocol-connection.js';
import { Requests } from './protocol-requests.js';

/**
 * How often, and how far apart, a resync answered `server_busy` is tried
 * again: in a cluster, a room whose server is gone opens on another within
 * seconds.
 */
const RESYNC_TRIES = 20;
const RESYNC_RETRY_MS = 750;

/** The Client's methods that keep a room's events in order. */
export class RoomEvents extends Requests {
  // A room's events, in order.

  enterRoom(room, seq) {
    if (room !== this.room) {
      this.heldEvents.clear();
      this.heldTurns = [];
    }
    this.room = room;
    this.lastSeq = seq;
  }

  takeSnapshot(message) {
    this.enterRoom(message.state.room, message.seq);
    for (const seq of [...this.heldEvents.keys()]) {
      if (seq <= message.seq) this.heldEvents.delete(seq);
    }
    // The snapshot holds the turn as of its seq; older turns are stale.
    this.heldTurns = this.heldTurns.filter((turn) => turn.after > message.seq);
    this.emit('room', message);
    this.emit('snapshot', message);
    this.drain();
  }

  takeEvent(message) {
    if (message.room !== this.room || message.seq <= this.lastSeq) return;
    if (message.seq === this.lastSeq + 1) {
      this.handOn(message);
      this.drain();
      return;
    }
    this.heldEvents.set(message.seq, message);
    if (!this.resyncing && this.status === STATUS.READY) this.resync(false);
  }

  takeTurn(message) {
    if (message.room !== this.room) return;
    if (message.after <= this.lastSeq) {
      this.emit('room', message);
      this.emit('turn', message);
    } else {
      this.heldTurns.push(message);
    }
  }

  handOn(message) {
    this.lastSeq = message.seq;
    this.emit('room', message);
    this.emit(message.type, message);
  }

  drain() {
    while (this.heldEvents.has(this.lastSeq + 1)) {
      const next = this.heldEvents.get(this.lastSeq + 1);
      this.heldEvents.delete(this.lastSeq + 1);
      this.handOn(next);
    }
    const due = this.heldTurns.filter((turn) => turn.after <= this.lastSeq);
    this.heldTurns = this.heldTurns.filter((turn) => turn.after > this.lastSeq);
    for (const turn of due) {
      this.emit('room', turn);
      this.emit('turn', turn);
    }
  }

  /**
   * Asks for the events after the last one handed on. After a reconnect
   * (`connecting`), the connection is ready once it is answered.
   */
  resync(connecting) {
    const room = this.room;
    this.resyncing = true;
    this.send('resync', { room, last_seq: this.lastSeq }, { internal: true }).then(
      () => {
        this.resyncing = false;
        this.resyncTries = 0;
        this.drain();
        if (connecting) this.ready();
        else if (this.heldEvents.size) this.resync(false);
      },
      (error) => {
        this.resyncing = false;
        if (error.code === 'connection_lost') return;
        // In a cluster, a room whose server is gone opens on another within
        // seconds; until then its server answers server_busy.
        if (error.code === 'server_busy' && this.room === room && this.resyncTries < RESYNC_TRIES) {
          this.resyncTries += 1;
          this.setTimer(() => {
            if (this.room === room && this.socket) this.resync(connecting);
          }, RESYNC_RETRY_MS);
          return;
        }
        this.resyncTries = 0;
        // The room closed while we were away, or cannot be entered.
        if (this.room === room) this.enterRoom(null, 0);
        this.emit('room_lost', { room, error });
        if (connecting) this.ready();
      },
    );
  }
}
