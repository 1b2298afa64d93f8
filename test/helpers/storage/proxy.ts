/**
 * A small HTTP proxy in front of a storage server (s3rver, Azurite): counts
 * the requests an SDK makes (listings, GETs, HEADs, PUTs) and injects storage
 * faults: an outage (connections cut), errors in the engine's own terms (503
 * SlowDown or ServerBusy, 500 OperationTimedOut, 403 AccessDenied or
 * AuthorizationFailure...), slow answers and truncated bodies. A dialect says
 * how the engine's requests and errors look; the log names every request by
 * `/container/key` whatever the engine.
 */
import { createServer, request as forward, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createHash } from 'node:crypto';

export type Operation = 'list' | 'get' | 'head' | 'put' | 'other';

export interface LoggedRequest {
  op: Operation;
  method: string;
  /** /container/key, decoded. */
  path: string;
  range?: string;
  ifNoneMatch?: string;
  status?: number;
  /** The request's headers as the SDK sent them. */
  headers: IncomingHttpHeaders;
}

export interface InjectedFailure {
  count: number;
  status: number;
  /** The engine's error code (default: the dialect's for the status). */
  code?: string;
}

export interface Faults {
  /** Every connection is cut before an answer (storage unreachable). */
  down: boolean;
  /** Answer the next N requests with this status and error code. */
  fail: InjectedFailure | undefined;
  /** Which requests `fail`, `truncate` and `delayMs` apply to (default: all). */
  only: ((request: LoggedRequest) => boolean) | undefined;
  /** Milliseconds each answer waits. */
  delayMs: number;
  /** Cut the body of the next N matching answers halfway. */
  truncate: number;
}

/** How one engine's requests and errors look on the wire. */
export interface Dialect {
  operation(method: string, url: URL): Operation;
  /** The request's `/container/key` (Azure's path starts with the account). */
  pathOf(url: URL): string;
  /** The error answer for `status` with `code`: headers and body. */
  error(status: number, code: string | undefined): { headers: Record<string, string>; body: string };
}

const xmlError = (code: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>injected ${code}</Message><RequestId>proxy</RequestId></Error>`;

const S3_CODES: Record<number, string> = { 503: 'SlowDown', 429: 'TooManyRequests', 403: 'AccessDenied', 500: 'InternalError' };

export const S3_DIALECT: Dialect = {
  operation: (method, url) => {
    if (method === 'GET' && url.searchParams.get('list-type') === '2') return 'list';
    return methodOperation(method);
  },
  pathOf: (url) => decodeURIComponent(url.pathname),
  error: (status, code) => ({
    headers: { 'content-type': 'application/xml' },
    body: xmlError(code ?? S3_CODES[status] ?? 'InternalError'),
  }),
};

const AZURE_CODES: Record<number, string> = {
  503: 'ServerBusy',
  500: 'OperationTimedOut',
  403: 'AuthorizationFailure',
  404: 'BlobNotFound',
};

/** Azurite's paths are `/account/container/blob`: `account` is dropped from the log. */
export function azureDialect(account: string): Dialect {
  return {
    operation: (method, url) => {
      if (method === 'GET' && url.searchParams.get('comp') === 'list') return 'list';
      return methodOperation(method);
    },
    pathOf: (url) => decodeURIComponent(url.pathname).replace(new RegExp(`^/${account}(?=/|$)`), ''),
    error: (status, code) => {
      const name = code ?? AZURE_CODES[status] ?? 'InternalError';
      return { headers: { 'content-type': 'application/xml', 'x-ms-error-code': name }, body: xmlError(name) };
    },
  };
}

function methodOperation(method: string): Operation {
  if (method === 'GET') return 'get';
  if (method === 'HEAD') return 'head';
  if (method === 'PUT') return 'put';
  return 'other';
}

export interface StorageProxy {
  endpoint: string;
  faults: Faults;
  /**
   * Objects the proxy itself serves, by `/bucket/key` (S3 only): added to the
   * listings of their bucket and prefix and answered to GET and HEAD, as S3
   * would. For keys a test must not upload to s3rver: s3rver resolves literal
   * `..` segments against its own folder (a key with many of them wrote a
   * file outside it), while real S3 keeps any key as it is.
   */
  planted: Map<string, Uint8Array>;
  log: LoggedRequest[];
  count(op?: Operation, where?: (request: LoggedRequest) => boolean): number;
  reset(): void;
  close(): Promise<void>;
}

/** The proxy before the S3 engine's was made general: the same object. */
export type S3Proxy = StorageProxy;

export async function startProxy(target: { port: number }, dialect: Dialect = S3_DIALECT): Promise<StorageProxy> {
  const log: LoggedRequest[] = [];
  const faults: Faults = { down: false, fail: undefined, only: undefined, delayMs: 0, truncate: 0 };
  const planted = new Map<string, Uint8Array>();
  const sockets = new Set<Socket>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const entry: LoggedRequest = {
      op: dialect.operation(req.method ?? 'GET', url),
      method: req.method ?? 'GET',
      path: dialect.pathOf(url),
      headers: req.headers,
    };
    if (typeof req.headers.range === 'string') entry.range = req.headers.range;
    else if (typeof req.headers['x-ms-range'] === 'string') entry.range = req.headers['x-ms-range'];
    if (typeof req.headers['if-none-match'] === 'string') entry.ifNoneMatch = req.headers['if-none-match'];
    log.push(entry);
    if (faults.down) return void req.socket.destroy();
    const applies = faults.only ? faults.only(entry) : true;
    if (faults.delayMs > 0 && applies) await new Promise((done) => setTimeout(done, faults.delayMs));
    if (faults.fail && faults.fail.count > 0 && applies) {
      faults.fail.count--;
      entry.status = faults.fail.status;
      const answer = dialect.error(faults.fail.status, faults.fail.code);
      res.writeHead(faults.fail.status, answer.headers);
      return void res.end(req.method === 'HEAD' ? undefined : answer.body);
    }
    const own = planted.get(entry.path);
    if (own && (entry.op === 'get' || entry.op === 'head')) return void servePlanted(req, res, entry, own);
    if (entry.op === 'list' && planted.size > 0 && dialect === S3_DIALECT)
      return void listWithPlanted(req, res, entry, url, target, planted);
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
    planted,
    log,
    count: (op, where) => log.filter((r) => (op === undefined || r.op === op) && (where === undefined || where(r))).length,
    reset() {
      log.length = 0;
      Object.assign(faults, { down: false, fail: undefined, only: undefined, delayMs: 0, truncate: 0 });
      planted.clear();
    },
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}

/** A planted object's ETag: its bytes' MD5, as S3 gives a single-part object's. */
function plantedEtag(bytes: Uint8Array): string {
  return `"${createHash('md5').update(bytes).digest('hex')}"`;
}

/** GET (whole or `bytes=a-b`) or HEAD of a planted object. */
function servePlanted(req: IncomingMessage, res: ServerResponse, entry: LoggedRequest, bytes: Uint8Array): void {
  const headers = { etag: plantedEtag(bytes), 'last-modified': new Date(0).toUTCString(), 'content-type': 'application/octet-stream' };
  const range = /^bytes=(\d+)-(\d*)$/u.exec(entry.range ?? '');
  const start = range ? Number(range[1]) : 0;
  const end = range && range[2] !== '' ? Math.min(Number(range[2]), bytes.length - 1) : bytes.length - 1;
  const body = Buffer.from(bytes.subarray(start, end + 1));
  entry.status = range ? 206 : 200;
  res.writeHead(entry.status, {
    ...headers,
    'content-length': String(body.length),
    ...(range ? { 'content-range': `bytes ${start}-${end}/${bytes.length}` } : {}),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

const xmlText = (text: string) => text.replace(/&/gu, '&amp;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;');

/** An S3 listing from upstream, with the planted objects of its bucket and prefix added to its last page. */
function listWithPlanted(
  req: IncomingMessage,
  res: ServerResponse,
  entry: LoggedRequest,
  url: URL,
  target: { port: number },
  planted: ReadonlyMap<string, Uint8Array>,
): void {
  const upstream = forward({ host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    const chunks: Buffer[] = [];
    answer.on('data', (chunk: Buffer) => chunks.push(chunk));
    answer.on('end', () => {
      let xml = Buffer.concat(chunks).toString('utf8');
      const bucket = `${entry.path.split('/')[1] ?? ''}`;
      const prefix = url.searchParams.get('prefix') ?? '';
      const encode = url.searchParams.get('encoding-type') === 'url';
      if (answer.statusCode === 200 && !xml.includes('<IsTruncated>true</IsTruncated>')) {
        const contents = [...planted]
          .filter(([path]) => path.startsWith(`/${bucket}/${prefix}`))
          .map(([path, bytes]) => {
            const key = path.slice(bucket.length + 2);
            const shown = encode ? encodeURIComponent(key).replace(/%2F/gu, '/') : key;
            const fields = [
              `<Key>${xmlText(shown)}</Key>`,
              `<LastModified>${new Date(0).toISOString()}</LastModified>`,
              `<ETag>${xmlText(plantedEtag(bytes))}</ETag>`,
              `<Size>${bytes.length}</Size><StorageClass>STANDARD</StorageClass>`,
            ];
            return `<Contents>${fields.join('')}</Contents>`;
          })
          .join('');
        xml = xml.replace('</ListBucketResult>', `${contents}</ListBucketResult>`);
      }
      entry.status = answer.statusCode;
      const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(xml)) };
      delete headers['transfer-encoding'];
      res.writeHead(answer.statusCode ?? 502, headers);
      res.end(xml);
    });
  });
  upstream.on('error', () => res.socket?.destroy());
  req.pipe(upstream);
}
