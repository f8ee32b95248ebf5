import type { Implementation } from '@modelcontextprotocol/server';

/** What a host shows: server.json's description and website (a test keeps them equal), an inline icon. */

export const serverDescription =
  "Your AI agent's own e-mail inbox: register once, then read, search and send mail over JMAP.";
export const serverWebsite = 'https://github.com/agent-mailbox/agent-mailbox';

// An envelope, 64×64, drawn for this project.
const iconSvg =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect x="6" y="14" width="52" height="36" rx="5" fill="#2f6fdf"/>' +
  '<path d="M9 18l23 18 23-18" fill="none" stroke="#fff" stroke-width="4" stroke-linejoin="round"/></svg>';

export function serverIdentity(version: string): Implementation {
  return {
    name: 'agent-mailbox',
    title: 'Agent Mailbox',
    version,
    description: serverDescription,
    websiteUrl: serverWebsite,
    icons: [
      {
        src: `data:image/svg+xml;base64,${Buffer.from(iconSvg).toString('base64')}`,
        mimeType: 'image/svg+xml',
        sizes: ['any'],
      },
    ],
  };
}
