// autocannon ships no types; this declares the part of its API that bench/load.ts uses.
declare module 'autocannon' {
  namespace autocannon {
    interface RawRequest {
      method: string;
      path: string;
      headers: Record<string, string>;
      body?: string;
    }

    interface Options {
      url: string;
      connections: number;
      duration: number;
      headers?: Record<string, string>;
      /** Each connection sends these in turn; `context` is the connection's own, emptied when it starts over at the first. */
      requests?: Array<{ setupRequest?: (request: RawRequest, context: Record<string, unknown>) => RawRequest }>;
    }

    interface Histogram {
      total: number;
      p50: number;
      p99: number;
    }

    interface Result {
      duration: number;
      requests: Histogram;
      latency: Histogram;
      non2xx: number;
      /** Connection errors, timeouts included. */
      errors: number;
      statusCodeStats: Record<string, { count: number }>;
    }
  }

  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export = autocannon;
}
