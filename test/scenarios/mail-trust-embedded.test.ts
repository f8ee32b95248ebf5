import { describeMailTrust } from './mail-trust-suite.js';

describeMailTrust('embedded');
