/** The limits of the HTTP edge: what a request may weigh and how long it may take to arrive. */
export const HTTP_LIMITS = {
  /** Request body, bytes. */
  bodyBytes: 256 * 1024,
  /** A path segment (a route parameter), characters: far above any id or link token. */
  paramLength: 100,
  /** From connection (or the previous response) to the end of the request headers. */
  headersTimeoutMs: 10_000,
  /** From connection to the end of the request body: a body shorter than its Content-Length ends here. */
  requestTimeoutMs: 30_000,
} as const;

export interface HttpTimeouts {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}
