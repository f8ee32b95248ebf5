import { describeSenderAuthentication } from './mail-auth-suite.js';

describeSenderAuthentication('embedded');
