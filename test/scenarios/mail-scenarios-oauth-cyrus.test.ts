import { describeMailScenarios } from './mail-scenarios-suite.js';

// The shared mail scenarios on Cyrus, through a connected account: the OAuth path's JMAP rules
// hold on the real mail store too.
describeMailScenarios('cyrus', 'oauth');
