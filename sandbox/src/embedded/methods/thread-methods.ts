import { jmapCapabilities } from '../../wire-constants.js';
import { jmapLimits } from '../protocol/jmap-limits.js';
import { changesMethod } from './changes-method.js';
import {
  checkObjectLimit,
  checkProperties,
  getArgs,
  parseArgs,
  pickProperties,
  type MethodDefinition,
} from './method-context.js';

const threadProperties = ['id', 'emailIds'];

/** Thread/get, Thread/changes (RFC 8621 §3) and Core/echo (RFC 8620 §4). */
export const threadMethods: Record<string, MethodDefinition> = {
  'Core/echo': {
    capability: jmapCapabilities.core,
    async run(args) {
      return { response: args };
    },
  },
  'Thread/get': {
    capability: jmapCapabilities.mail,
    async run(args, ctx) {
      const input = parseArgs(getArgs, args);
      checkProperties(input.properties, threadProperties);
      const all = [...new Set([...ctx.account.emails.values()].map((email) => email.threadId))];
      const ids = input.ids ?? all;
      checkObjectLimit(ids.length, jmapLimits.maxObjectsInGet, 'maxObjectsInGet');
      const list: Record<string, unknown>[] = [];
      const notFound: string[] = [];
      for (const id of ids) {
        const emailIds = ctx.account.threadEmailIds(id);
        if (emailIds.length) list.push(pickProperties({ id, emailIds }, input.properties ?? threadProperties));
        else notFound.push(id);
      }
      return { response: { accountId: ctx.account.address, state: ctx.account.changes.Thread.state, list, notFound } };
    },
  },
  'Thread/changes': changesMethod('Thread'),
};
