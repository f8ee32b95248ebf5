/** One server-sent event. */
export interface ServerEvent {
  event: string;
  data: string;
  /** performance.now() when it was parsed. */
  at: number;
}

/** An open text/event-stream response, read event by event. */
export interface EventStreamReader {
  status: number;
  contentType: string;
  /** The next event, or undefined when the stream ended; fails after timeoutMs. */
  next(timeoutMs?: number): Promise<ServerEvent | undefined>;
  close(): void;
}

/** Opens `url` with a bearer and parses the event stream (WHATWG HTML §9.2 framing, enough for tests). */
export async function openEventStream(url: string, bearer: string): Promise<EventStreamReader> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${bearer}`, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const queue: ServerEvent[] = [];
  let ended = response.status !== 200;

  const parseBuffered = (): void => {
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length) queue.push({ event, data: data.join('\n'), at: performance.now() });
    }
  };

  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    async next(timeoutMs = 5000) {
      const deadline = performance.now() + timeoutMs;
      while (queue.length === 0 && !ended) {
        if (!reader) return undefined;
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no event within ${timeoutMs} ms`)),
            Math.max(0, deadline - performance.now()),
          );
        });
        try {
          const chunk = await Promise.race([reader.read(), timeout]);
          if (chunk.done) ended = true;
          else buffer += decoder.decode(chunk.value, { stream: true });
        } finally {
          clearTimeout(timer);
        }
        parseBuffered();
      }
      return queue.shift();
    },
    close() {
      controller.abort();
    },
  };
}
