import { cyrusSkipReason } from '../../../test/cyrus/cyrus-test-kit.js';
import { describeSenderAuthentication } from './mail-auth-suite.js';

// Cyrus stores what LMTP hands it: the test shows the stamped header survives that path, and that
// mail between inboxes (Cyrus → the sandbox's relay) is signed and stamped too.
describeSenderAuthentication('cyrus', cyrusSkipReason('sender authentication on cyrus'));
