/**
 * A small HTTP proxy in front of s3rver: counts the requests the SDK makes
 * (listings, GETs, HEADs, PUTs) and injects storage faults: an outage
 * (connections cut), throttling (503 SlowDown or 429), access denied, slow
 * answers and truncated bodies.
 */
import { createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Operation = 'list' | 'get' | 'head' | 'put' | 'other';

export interface LoggedRequest {
  op: Operation;
  method: string;
  /** /bucket/key, decoded. */
  path: string;
  range?: string;
  ifNoneMatch?: string;
  status?: number;
}

export interface Faults {
  /** Every connection is cut before an answer (storage unreachable). */
  down: boolean;
  /** Answer the next N requests with this status (503 SlowDown, 429 or 403 AccessDenied). */
  fail: { count: number; status: 503 | 429 | 403 | 500 } | undefined;
  /** Which requests `fail`, `truncate` and `delayMs` apply to (default: all). */
  only: ((request: LoggedRequest) => boolean) | undefined;
  /** Milliseconds each answer waits. */
  delayMs: number;
  /** Cut the body of the next N matching answers halfway. */
  truncate: number;
}

export interface S3Proxy {
  endpoint: string;
  faults: Faults;
  log: LoggedRequest[];
  count(op?: Operation, where?: (request: LoggedRequest) => boolean): number;
  reset(): void;
  close(): Promise<void>;
}

const ERROR_CODES: Record<number, string> = { 503: 'SlowDown', 429: 'TooManyRequests', 403: 'AccessDenied', 500: 'InternalError' };

function operation(method: string, url: URL): Operation {
  if (method === 'GET' && url.searchParams.get('list-type') === '2') return 'list';
  if (method === 'GET') return 'get';
  if (method === 'HEAD') return 'head';
  if (method === 'PUT') return 'put';
  return 'other';
}

function errorBody(status: number): string {
  const code = ERROR_CODES[status] ?? 'InternalError';
  return `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>injected ${code}</Message><RequestId>proxy</RequestId></Error>`;
}

export async function startProxy(target: { port: number }): Promise<S3Proxy> {
  const log: LoggedRequest[] = [];
  const faults: Faults = { down: false, fail: undefined, only: undefined, delayMs: 0, truncate: 0 };
  const sockets = new Set<Socket>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const entry: LoggedRequest = {
      op: operation(req.method ?? 'GET', url),
      method: req.method ?? 'GET',
      path: decodeURIComponent(url.pathname),
    };
    if (typeof req.headers.range === 'string') entry.range = req.headers.range;
    if (typeof req.headers['if-none-match'] === 'string') entry.ifNoneMatch = req.headers['if-none-match'];
    log.push(entry);
    if (faults.down) return void req.socket.destroy();
    const applies = faults.only ? faults.only(entry) : true;
    if (faults.delayMs > 0 && applies) await new Promise((done) => setTimeout(done, faults.delayMs));
    if (faults.fail && faults.fail.count > 0 && applies) {
      faults.fail.count--;
      entry.status = faults.fail.status;
      res.writeHead(faults.fail.status, { 'content-type': 'application/xml' });
      return void res.end(errorBody(faults.fail.status));
    }
    const cut = faults.truncate > 0 && applies && entry.op === 'get';
    if (cut) faults.truncate--;
    const upstream = forward(
      { host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        entry.status = answer.statusCode;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (!cut) return void answer.pipe(res);
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const body = Buffer.concat(chunks);
          res.write(body.subarray(0, Math.floor(body.length / 2)));
          // Headers promised the whole body: cutting the connection now is a truncated answer.
          setImmediate(() => res.socket?.destroy());
        });
      },
    );
    upstream.on('error', () => res.socket?.destroy());
    req.pipe(upstream);
  }

  const server = createServer((req, res) => void handle(req, res));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    faults,
    log,
    count: (op, where) => log.filter((r) => (op === undefined || r.op === op) && (where === undefined || where(r))).length,
    reset() {
      log.length = 0;
      Object.assign(faults, { down: false, fail: undefined, only: undefined, delayMs: 0, truncate: 0 });
    },
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}
