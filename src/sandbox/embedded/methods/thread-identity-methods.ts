import { z } from 'zod';
import { jmapCapabilities } from '../../../wire-constants.js';
import { jmapLimits } from '../protocol/jmap-limits.js';
import { checkObjectLimit, checkProperties, parseArgs, pickProperties, type MethodDefinition } from './method-context.js';
import { changesMethod } from './changes-method.js';

const getArgs = z.object({
  accountId: z.string().optional(),
  ids: z.array(z.string()).nullable().optional(),
  properties: z.array(z.string()).nullable().optional(),
});

const threadProperties = ['id', 'emailIds'];
const identityProperties = ['id', 'name', 'email', 'replyTo', 'bcc', 'textSignature', 'htmlSignature', 'mayDelete'];

/** The single identity of an inbox; its id is the address, as Cyrus requires (cyrus.md). */
export function identityOf(address: string): Record<string, unknown> {
  return { id: address, name: '', email: address, replyTo: null, bcc: null, textSignature: '', htmlSignature: '', mayDelete: false };
}

/** Thread/get, Thread/changes, Identity/get and Core/echo. */
export const threadIdentityMethods: Record<string, MethodDefinition> = {
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
  'Identity/get': {
    capability: jmapCapabilities.submission,
    async run(args, ctx) {
      const input = parseArgs(getArgs, args);
      checkProperties(input.properties, identityProperties);
      const identity = pickProperties(identityOf(ctx.account.address), input.properties ?? identityProperties);
      const ids = input.ids ?? [ctx.account.address];
      const list = ids.includes(ctx.account.address) ? [identity] : [];
      const notFound = ids.filter((id) => id !== ctx.account.address);
      // Identities never change in the sandbox, so the state is constant.
      return { response: { accountId: ctx.account.address, state: '0', list, notFound } };
    },
  },
};
