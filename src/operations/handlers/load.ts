/** The handlers (index.ts), imported by the first call that runs or presents one; a failed import is tried again. */
let loaded: Promise<typeof import('./index.js')> | undefined;

export function loadHandlers(): Promise<typeof import('./index.js')> {
  return (loaded ??= import('./index.js').catch((error: unknown) => {
    loaded = undefined;
    throw error;
  }));
}
