import { describeMailScenarios } from './mail-scenarios-suite.js';

// The shared mail scenarios on the embedded backend, through a connected account: one person's
// grant over both inboxes, each step choosing its inbox (X-Service-Account-Id on every request).
describeMailScenarios('embedded', 'oauth');
