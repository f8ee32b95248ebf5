import { describeReceiveRules } from './receive-rules-suite.js';

describeReceiveRules('embedded');
