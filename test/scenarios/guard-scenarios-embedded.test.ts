import { describeGuardScenarios } from './guard-scenarios-suite.js';

// The guard's scenarios (guard-scenarios-suite.ts) on the embedded backend; one file per backend so the two run on separate workers.
describeGuardScenarios('embedded');
