// A small WebSocket client for Node versions without a global WebSocket
// (Node 20 has one only behind --experimental-websocket). It offers the
// part of the browser's API that protocol.js uses: the constructor,
// readyState, send, close, and the onopen/onmessage/onclose/onerror
// properties. It speaks plain ws:// only, which is what a local server
// and the tests need; use the built-in WebSocket for wss://.

import { request } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export class NodeWebSocket {
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.onopen = null;
    this.onmessage = null;
    this.onclose = null;
    this.onerror = null;
    this.buffer = Buffer.alloc(0);
    this.fragments = null;
    this.closeCode = null;
    this.closeReason = '';
    const target = new URL(url);
    if (target.protocol !== 'ws:') throw new Error('NodeWebSocket speaks ws:// only');
    const key = randomBytes(16).toString('base64');
    const req = request({
      host: target.hostname,
      port: target.port || 80,
      path: `${target.pathname}${target.search}`,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Key': key,
        'Sec-WebSocket-Version': '13',
      },
    });
    req.on('upgrade', (response, socket, head) => {
      const expected = createHash('sha1').update(key + GUID).digest('base64');
      if (response.headers['sec-websocket-accept'] !== expected) {
        socket.destroy();
        this.failed();
        return;
      }
      this.socket = socket;
      socket.setNoDelay(true);
      socket.on('data', (chunk) => this.read(chunk));
      socket.on('close', () => this.finished());
      socket.on('error', () => {});
      this.readyState = 1;
      this.onopen?.({ type: 'open' });
      if (head.length) this.read(head);
    });
    // A refused upgrade (503 while the server is full or stopping, say)
    // is an ordinary answer, and the connection is then simply lost.
    req.on('response', (response) => {
      response.resume();
      this.failed();
    });
    req.on('error', () => this.failed());
    req.end();
  }

  send(text) {
    if (this.readyState !== 1) throw new Error('the WebSocket is not open');
    this.frame(0x1, Buffer.from(String(text)));
  }

  close(code = 1000, reason = '') {
    if (this.readyState >= 2) return;
    if (!this.socket) {
      this.failed();
      return;
    }
    this.readyState = 2;
    const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
    payload.writeUInt16BE(code, 0);
    payload.write(reason, 2);
    this.frame(0x8, payload);
    // The server answers a close with its own and ends the connection; if
    // it does not, the socket is ended anyway.
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  // Client frames are always masked (RFC 6455, section 5.3).
  frame(opcode, payload) {
    const length = payload.length;
    const extra = length < 126 ? 0 : length < 65536 ? 2 : 8;
    const header = Buffer.alloc(2 + extra + 4);
    header[0] = 0x80 | opcode;
    if (extra === 0) header[1] = 0x80 | length;
    else if (extra === 2) {
      header[1] = 0x80 | 126;
      header.writeUInt16BE(length, 2);
    } else {
      header[1] = 0x80 | 127;
      header.writeBigUInt64BE(BigInt(length), 2);
    }
    const mask = randomBytes(4);
    mask.copy(header, 2 + extra);
    const masked = Buffer.alloc(length);
    for (let i = 0; i < length; i += 1) masked[i] = payload[i] ^ mask[i % 4];
    this.socket.write(Buffer.concat([header, masked]));
  }

  read(chunk) {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const buffer = this.buffer;
      if (buffer.length < 2) return;
      const fin = (buffer[0] & 0x80) !== 0;
      const opcode = buffer[0] & 0x0f;
      let length = buffer[1] & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffer.length < 4) return;
        length = buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buffer.length < 10) return;
        length = Number(buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (buffer.length < offset + length) return;
      const payload = buffer.subarray(offset, offset + length);
      this.buffer = buffer.subarray(offset + length);
      this.handle(fin, opcode, payload);
    }
  }

  handle(fin, opcode, payload) {
    switch (opcode) {
      case 0x0:
      case 0x1:
      case 0x2:
        this.fragments = opcode === 0x0 ? [...(this.fragments ?? []), payload] : [payload];
        if (fin) {
          const data = Buffer.concat(this.fragments);
          this.fragments = null;
          this.onmessage?.({ type: 'message', data: opcode === 0x2 ? data : data.toString('utf8') });
        }
        break;
      case 0x8:
        this.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
        this.closeReason = payload.length > 2 ? payload.subarray(2).toString('utf8') : '';
        if (this.readyState === 1) {
          this.readyState = 2;
          this.frame(0x8, payload.subarray(0, 2));
        }
        this.socket.end();
        break;
      case 0x9:
        this.frame(0xa, payload);
        break;
      default:
    }
  }

  finished() {
    if (this.readyState === 3) return;
    this.readyState = 3;
    const code = this.closeCode ?? 1006;
    this.onclose?.({ type: 'close', code, reason: this.closeReason, wasClean: this.closeCode !== null });
  }

  failed() {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onerror?.({ type: 'error' });
    this.onclose?.({ type: 'close', code: 1006, reason: '', wasClean: false });
  }
}

/** The WebSocket to use under Node: the built-in one when there is one. */
export const WebSocketForNode = globalThis.WebSocket ?? NodeWebSocket;
