import { describe, expect, it } from 'vitest';
import { startTestSandbox } from '../helpers/sandbox.js';
import { cyrusSkipReason, eventually } from '../../../test/cyrus/cyrus-test-kit.js';
import { callOk, connectWithOAuth, RecordingOAuthProvider } from './hosted-mcp-kit.js';

// The hosted tools speak plain JMAP to the JMAP host, so they work on the Cyrus backend too:
// role mailboxes, identities, uploads, search and threading as Cyrus does them.
const skip = cyrusSkipReason('hosted MCP on cyrus');

describe.skipIf(skip)('the hosted MCP tools on the Cyrus backend', () => {
  it("send with an attachment, list, read, search, reply and run a preset between two of a person's inboxes", async () => {
    const sandbox = await startTestSandbox({
      backend: 'cyrus',
      rateLimit: false,
      oauth: { autoApprove: [{ person: 'Ada', inboxes: ['ada-cyrus', 'ada-cyrus-two'] }] },
    });
    const [one, two] = sandbox.oauth.autoApproved[0]?.inboxes ?? [];
    const { client } = await connectWithOAuth(sandbox.mcpUrl, new RecordingOAuthProvider());

    await callOk(client, 'send_email', {
      to: [two?.address ?? ''],
      subject: 'Cyrus hello',
      body: 'A body Cyrus indexes.',
      attachments: [
        {
          filename: 'note.txt',
          content_type: 'text/plain',
          content_base64: Buffer.from('attached text').toString('base64'),
        },
      ],
    });
    const listed = await eventually(async () => {
      const inbox = await callOk(client, 'read_inbox', { agent_id: two?.accountId });
      return (inbox['messages'] as Array<Record<string, unknown>>).find(
        (message) => message['subject'] === 'Cyrus hello',
      );
    });
    expect(listed).toMatchObject({ from: one?.address, has_attachment: true });

    const read = await callOk(client, 'read_message', { agent_id: two?.accountId, message_id: String(listed['id']) });
    expect(String(read['body'])).toContain('A body Cyrus indexes.');
    expect((read['message'] as { attachments: Array<{ name: string }> }).attachments.map((file) => file.name)).toEqual([
      'note.txt',
    ]);

    const found = await callOk(client, 'search_messages', { agent_id: two?.accountId, subject: 'Cyrus hello' });
    expect((found['messages'] as unknown[]).length).toBe(1);

    await callOk(client, 'reply_to_message', {
      agent_id: two?.accountId,
      message_id: String(listed['id']),
      body: 'Got it.',
    });
    const reply = await eventually(async () =>
      (
        (await callOk(client, 'run_preset', { preset: 'list_inbox' }))['messages'] as Array<Record<string, unknown>>
      ).find((message) => message['subject'] === 'Re: Cyrus hello'),
    );
    expect(reply['from']).toBe(two?.address);

    const raw = await callOk(client, 'jmap_request', {
      method_calls: [['Mailbox/get', { properties: ['role'] }, 'm']],
    });
    expect(JSON.stringify(raw['methodResponses'])).toContain('"role":"sent"');
  });
});
