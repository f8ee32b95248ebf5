/**
 * The handlers of every operation (index.ts), imported by the first call that runs or presents one and
 * kept: the table (names, descriptions, schemas) is all a start and tools/list read. A failed import is
 * tried again on the next call.
 */
let loaded: Promise<typeof import('./index.js')> | undefined;

export function loadHandlers(): Promise<typeof import('./index.js')> {
  return (loaded ??= import('./index.js').catch((error: unknown) => {
    loaded = undefined;
    throw error;
  }));
}
