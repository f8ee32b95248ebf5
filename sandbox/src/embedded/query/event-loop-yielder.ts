/**
 * Gives the event loop a turn during long store work. The auth host shares the process with the
 * JMAP host; awaiting only resolved promises never lets its sockets be served, so a slow query
 * would freeze sign-up and token checks too.
 */
export class EventLoopYielder {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs = 8) {}

  /** Yields (one macrotask turn) once the current slice has run for sliceMs. */
  async maybeYield(): Promise<void> {
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
  }
}
