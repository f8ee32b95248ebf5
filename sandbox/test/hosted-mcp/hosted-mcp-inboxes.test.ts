import { describe, expect, it } from 'vitest';
import { startTestSandbox } from '../helpers/sandbox.js';
import {
  callFailing,
  callOk,
  connectWithOAuth,
  deliverFromOutside,
  RecordingOAuthProvider,
  type PersonAtBrowser,
} from './hosted-mcp-kit.js';

// Spec §4.4: agent_id is optional on every tool; the default is the consent's inbox, else the only
// one; with several and no default the tool asks for list_agents; ownership is checked every call.
const sandbox = await startTestSandbox({
  oauth: {
    autoApprove: [
      { person: 'Ada', inboxes: ['ada-first', 'ada-other'] },
      { person: 'Bea', inboxes: ['bea-one', 'bea-two'], withoutDefault: true },
      { person: 'Cy', inboxes: ['cy-only'], withoutDefault: true },
    ],
  },
});
const inboxesOf = (person: string) =>
  sandbox.oauth.autoApproved.find((entry) => entry.person === person)?.inboxes ?? [];
const as =
  (person: string): PersonAtBrowser =>
  async (url) => {
    url.searchParams.set('login_hint', person);
    const response = await fetch(url, { redirect: 'manual' });
    return new URL(response.headers.get('location') ?? '');
  };

describe('choosing the inbox of a call', () => {
  it('uses the inbox chosen at consent when agent_id is left out, and another owned one when named', async () => {
    const { client } = await connectWithOAuth(sandbox.mcpUrl, new RecordingOAuthProvider(), as('Ada'));
    const [first, other] = inboxesOf('Ada');
    expect((await callOk(client, 'read_inbox'))['inbox']).toEqual({
      agent_id: first?.accountId,
      address: 'ada-first@agent-mailbox.test',
    });
    expect((await callOk(client, 'read_inbox', { agent_id: other?.accountId }))['inbox']).toEqual({
      agent_id: other?.accountId,
      address: 'ada-other@agent-mailbox.test',
    });
  });

  it('answers with a prompt to call list_agents when the account has several inboxes and no default', async () => {
    const { client } = await connectWithOAuth(sandbox.mcpUrl, new RecordingOAuthProvider(), as('Bea'));
    for (const [tool, args] of [
      ['read_inbox', {}],
      ['search_messages', { text: 'x' }],
      ['send_email', { to: ['x@example.org'], subject: 's', body: 'b' }],
      ['jmap_request', { method_calls: [['Mailbox/get', {}, 'm']] }],
    ] as const) {
      const { error, text } = await callFailing(client, tool, args);
      expect(error, tool).toMatchObject({ code: 'choose_inbox', next: { tool: 'list_agents' } });
      expect(text).toContain('Call list_agents, then call this tool again with agent_id');
    }
    const agents = await callOk(client, 'list_agents');
    expect(agents['default_agent_id']).toBeNull();
    const [, two] = inboxesOf('Bea');
    expect((await callOk(client, 'read_inbox', { agent_id: two?.accountId }))['inbox']).toEqual({
      agent_id: two?.accountId,
      address: 'bea-two@agent-mailbox.test',
    });
  });

  it('uses the only inbox of an account without a default', async () => {
    const { client } = await connectWithOAuth(sandbox.mcpUrl, new RecordingOAuthProvider(), as('Cy'));
    expect(((await callOk(client, 'read_inbox'))['inbox'] as Record<string, unknown>)['address']).toBe(
      'cy-only@agent-mailbox.test',
    );
  });

  it("refuses another person's accountId on every tool that takes one, and a fetch id of their inbox", async () => {
    const { client } = await connectWithOAuth(sandbox.mcpUrl, new RecordingOAuthProvider(), as('Ada'));
    const [beaInbox] = inboxesOf('Bea');
    const foreign = beaInbox?.accountId ?? '';
    await deliverFromOutside(sandbox.smtpPort, {
      from: 'x@example.org',
      to: 'bea-one@agent-mailbox.test',
      subject: 'private',
      text: 'for Bea only',
    });
    for (const [tool, args] of [
      ['read_inbox', {}],
      ['read_message', { message_id: 'M1' }],
      ['search_messages', { text: 'private' }],
      ['send_email', { to: ['x@example.org'], subject: 's', body: 'b' }],
      ['reply_to_message', { message_id: 'M1', body: 'b' }],
      ['search', { query: 'private' }],
      ['run_preset', { preset: 'list_inbox' }],
      ['run_preset', { preset: 'list_inbox', dry_run: true }],
      ['jmap_request', { method_calls: [['Email/query', {}, 'q']] }],
    ] as const) {
      const { error } = await callFailing(client, tool, { ...args, agent_id: foreign });
      expect(error, tool).toMatchObject({ code: 'access_denied' });
    }
    const { error } = await callFailing(client, 'fetch', { id: `${foreign}:M1` });
    expect(error).toMatchObject({ code: 'access_denied' });
  });

  it('takes only an accountId as agent_id', async () => {
    const { client } = await connectWithOAuth(sandbox.mcpUrl, new RecordingOAuthProvider(), as('Ada'));
    const result = await client.callTool({
      name: 'read_inbox',
      arguments: { agent_id: 'ada-first@agent-mailbox.test' },
    });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('agent_id is an accountId');
  });
});
