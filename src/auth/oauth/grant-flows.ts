// connect, disconnect and renewal import() this one module: one bundle entry, not four to split chunks around.
export { connectGrant } from './connect-grant.js';
export { connectedInboxes, disconnectGrant } from './disconnect-grant.js';
export { refreshGrant } from './oauth-protocol.js';
export { browserOpener } from './open-browser.js';
