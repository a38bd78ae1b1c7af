// A development server for the web client, until (and besides) the spades
// binary serving it itself: it serves web/ with the same
// Content-Security-Policy the binary sends, answers / and /r/CODE with
// index.html, and passes /api and the /ws WebSocket through to a running
// spades server.
//
//   node web/dev/serve.mjs --backend 127.0.0.1:8080 --listen 127.0.0.1:8081

import { createServer, request } from 'node:http';
import { connect } from 'node:net';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = new Map();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i], process.argv[i + 1]);
const [backendHost, backendPort] = (args.get('--backend') ?? '127.0.0.1:8080').split(':');
const [host, port] = (args.get('--listen') ?? '127.0.0.1:8081').split(':');
const root = fileURLToPath(new URL('..', import.meta.url));

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.md': 'text/markdown; charset=utf-8',
};

const server = createServer(async (req, res) => {
  const url = new URL(req.url, 'http://localhost');
  if (url.pathname.startsWith('/api/')) {
    const upstream = request({
      host: backendHost, port: backendPort, method: req.method, path: req.url, headers: req.headers,
    }, (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
    return;
  }
  let path = url.pathname;
  if (path === '/' || /^\/r\/[A-Za-z0-9]+\/?$/.test(path)) path = '/index.html';
  const file = normalize(join(root, path));
  if (!file.startsWith(root)) {
    res.writeHead(403);
    res.end();
    return;
  }
  try {
    const body = await readFile(file);
    res.writeHead(200, {
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Security-Policy': "default-src 'self'",
      'Cache-Control': 'no-cache',
    });
    res.end(body);
  } catch {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found');
  }
});

// The WebSocket upgrade is passed on byte for byte.
server.on('upgrade', (req, socket, head) => {
  const upstream = connect(Number(backendPort), backendHost, () => {
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length) upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  upstream.on('error', () => socket.destroy());
  socket.on('error', () => upstream.destroy());
});

server.listen(Number(port), host, () => {
  console.log(`web client on http://${host}:${port}/ (backend ${backendHost}:${backendPort})`);
});
