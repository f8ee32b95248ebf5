import { z } from 'zod';
import { jmapCapabilities } from '../../../wire-constants.js';
import {
  bodyFetchArgs,
  defaultEmailProperties,
  isKnownEmailProperty,
  renderEmail,
  storedEmailSource,
  viewOptionsOf,
} from './email-view.js';
import { jmapLimits } from '../../protocol/jmap-limits.js';
import { changesMethod } from '../changes-method.js';
import {
  checkObjectLimit,
  checkProperties,
  parseArgs,
  resolveCreationId,
  type MethodDefinition,
} from '../method-context.js';

const getArgs = z.object({
  accountId: z.string().optional(),
  ids: z.array(z.string()).nullable().optional(),
  ...bodyFetchArgs,
});

/** Email/get and Email/changes. */
export const emailReadMethods: Record<string, MethodDefinition> = {
  'Email/get': {
    capability: jmapCapabilities.mail,
    async run(args, ctx) {
      const input = parseArgs(getArgs, args);
      checkProperties(input.properties, [], isKnownEmailProperty);
      const ids = input.ids ?? [...ctx.account.emails.keys()];
      checkObjectLimit(ids.length, jmapLimits.maxObjectsInGet, 'maxObjectsInGet');
      const list: Record<string, unknown>[] = [];
      const notFound: string[] = [];
      for (const requested of ids) {
        const record = ctx.account.emails.get(resolveCreationId(requested, ctx) ?? '');
        if (!record) {
          notFound.push(requested);
          continue;
        }
        list.push(
          await renderEmail(storedEmailSource(ctx.account, record), viewOptionsOf(input, defaultEmailProperties)),
        );
      }
      return { response: { accountId: ctx.account.address, state: ctx.account.changes.Email.state, list, notFound } };
    },
  },
  'Email/changes': changesMethod('Email'),
};
