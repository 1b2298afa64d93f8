// Types for embeddings-server.mjs.
export interface EmbeddingsRequest {
  model: unknown;
  input: string[];
  headers: Record<string, string | string[] | undefined>;
}
export type EmbeddingsFault = 'hang' | { status: number; message: string } | undefined;
export interface EmbeddingsServer {
  url: string;
  requests: EmbeddingsRequest[];
  violations: string[];
  close(): Promise<void>;
}
export function startEmbeddingsServer(
  embed: (texts: string[], model: string) => number[][] | Promise<number[][]>,
  options?: { fault?: (request: EmbeddingsRequest, count: number) => EmbeddingsFault },
): Promise<EmbeddingsServer>;
