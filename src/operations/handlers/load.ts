import { loadOnFirstCall } from '../define-operation.js';

/** The handlers of every operation (index.ts), imported by the first call that runs or presents one. */
export const loadHandlers = loadOnFirstCall(() => import('./index.js'));
