/**
 * Objects read from a bucket, kept by path and ETag: SKILL.md heads (small,
 * one per skill, kept while their ETag is listed) and whole objects (the
 * instructions read at activation), the least recently used going first past
 * a byte limit.
 */

/** Bytes of whole objects kept. */
export const BODY_CACHE_BYTES = 32 * 1024 * 1024;

interface Kept {
  etag: string;
  bytes: Uint8Array;
}

export class ObjectCache {
  private readonly heads = new Map<string, Kept>();
  private readonly bodies = new Map<string, Kept>();
  private bodyBytes = 0;

  constructor(private readonly maxBodyBytes = BODY_CACHE_BYTES) {}

  head(path: string, etag: string): Uint8Array | undefined {
    const kept = this.heads.get(path);
    return kept?.etag === etag ? kept.bytes : undefined;
  }

  setHead(path: string, etag: string, bytes: Uint8Array): void {
    this.heads.set(path, { etag, bytes });
  }

  body(path: string, etag: string): Uint8Array | undefined {
    const kept = this.bodies.get(path);
    if (kept?.etag !== etag) return undefined;
    // Most recently used last.
    this.bodies.delete(path);
    this.bodies.set(path, kept);
    return kept.bytes;
  }

  setBody(path: string, etag: string, bytes: Uint8Array): void {
    this.dropBody(path);
    if (bytes.length > this.maxBodyBytes) return;
    this.bodies.set(path, { etag, bytes });
    this.bodyBytes += bytes.length;
    for (const [oldest] of this.bodies) {
      if (this.bodyBytes <= this.maxBodyBytes) break;
      this.dropBody(oldest);
    }
  }

  /** Forget what `keep` says is no longer listed with that ETag. */
  prune(keep: (path: string, etag: string) => boolean): void {
    for (const [path, kept] of this.heads) if (!keep(path, kept.etag)) this.heads.delete(path);
    for (const [path, kept] of this.bodies) if (!keep(path, kept.etag)) this.dropBody(path);
  }

  private dropBody(path: string): void {
    const kept = this.bodies.get(path);
    if (!kept) return;
    this.bodies.delete(path);
    this.bodyBytes -= kept.bytes.length;
  }
}
