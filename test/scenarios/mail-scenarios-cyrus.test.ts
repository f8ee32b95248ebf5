import { describeMailScenarios } from './mail-scenarios-suite.js';

// The shared mail scenarios (mail-scenarios-suite.ts) on the cyrus backend; one file per backend
// so the two run on separate workers.
describeMailScenarios('cyrus');
