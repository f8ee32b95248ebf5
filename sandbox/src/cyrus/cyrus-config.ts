import { join } from 'node:path';

/** Where Debian 12 installs Cyrus's service binaries (package cyrus-imapd / cyrus-caldav). */
export const cyrusBinDir = '/usr/lib/cyrus/bin';

/** Loopback ports of one private Cyrus instance (all picked free before master starts). */
export interface CyrusPorts {
  imap: number;
  http: number;
  lmtp: number;
  /** ManageSieve (RFC 5804): Sieve scripts, e.g. a vacation action, since Cyrus 3.6.1's JMAP VacationResponse crashes httpd (test/cyrus/DIFFERENCES.md). */
  sieve: number;
  /** The harness's own SMTP server, which Cyrus's EmailSubmission talks to. */
  smtp: number;
}

/** The directory layout of one private instance; everything lives under `base`. */
export interface CyrusLayout {
  base: string;
  imapdConf: string;
  cyrusConf: string;
  pidFile: string;
  sasldb: string;
  syslogFile: string;
  /** Directories Cyrus expects to exist (created cyrus:mail before master starts). */
  dirs: string[];
}

/** The file and directory names of an instance rooted at `base`. */
export function cyrusLayout(base: string): CyrusLayout {
  const dir = (...parts: string[]): string => join(base, ...parts);
  return {
    base,
    imapdConf: dir('etc', 'imapd.conf'),
    cyrusConf: dir('etc', 'cyrus.conf'),
    pidFile: dir('run', 'master.pid'),
    sasldb: dir('etc', 'sasldb2'),
    syslogFile: dir('log', 'syslog'),
    dirs: [
      dir('etc'),
      dir('run'),
      dir('run', 'socket'),
      dir('log'),
      dir('tmp'),
      dir('config'),
      dir('config', 'db'),
      dir('config', 'proc'),
      dir('config', 'user'),
      dir('config', 'quota'),
      dir('config', 'socket'),
      dir('config', 'lock'),
      dir('config', 'sieve'),
      dir('spool'),
      dir('search'),
    ],
  };
}

/**
 * imapd.conf of a private instance. Every key here was measured on Cyrus 3.6.1
 * (shared/reference/cyrus.md): addresses as user ids, JMAP over httpd, role mailboxes created at
 * first IMAP login, Xapian for text filters, and submission to the harness's SMTP server.
 */
export function renderImapdConf(layout: CyrusLayout, ports: CyrusPorts): string {
  const { base } = layout;
  const roles = ['Drafts', 'Sent', 'Trash', 'Junk', 'Archive'];
  const lines: Array<[string, string]> = [
    ['configdirectory', join(base, 'config')],
    ['defaultpartition', 'default'],
    ['partition-default', join(base, 'spool')],
    ['sievedir', join(base, 'config', 'sieve')],
    ['proc_path', join(base, 'config', 'proc')],
    ['mboxname_lockpath', join(base, 'config', 'lock')],
    ['temp_path', join(base, 'tmp')],
    ['lmtpsocket', join(base, 'run', 'socket', 'lmtp')],
    ['idlesocket', join(base, 'run', 'socket', 'idle')],
    ['notifysocket', join(base, 'run', 'socket', 'notify')],
    ['servername', 'localhost'],
    ['admins', 'cyrusadmin'],
    ['allowplaintext', 'yes'],
    ['sasl_pwcheck_method', 'auxprop'],
    ['sasl_auxprop_plugin', 'sasldb'],
    ['sasl_sasldb_path', layout.sasldb],
    ['sasl_mech_list', 'PLAIN LOGIN'],
    // The JMAP accountId must be the full address, as on the live service (live-service.md).
    ['virtdomains', 'userid'],
    ['unixhierarchysep', 'yes'],
    ['altnamespace', 'yes'],
    ['lmtp_downcase_rcpt', 'yes'],
    ['httpmodules', 'jmap'],
    ['conversations', 'yes'],
    ['conversations_db', 'twoskip'],
    ['jmap_preview_length', '256'],
    ['autocreate_quota', '0'],
    ['autocreate_inbox_folders', roles.join(' | ')],
    ['autocreate_subscribe_folders', roles.join(' | ')],
    ...roles.map((role): [string, string] => [`xlist-${role.toLowerCase()}`, role]),
    ['smtp_backend', 'host'],
    ['smtp_host', `127.0.0.1:${ports.smtp}`],
    // Without Xapian every text/from/subject/body filter fails with serverFail.
    ['search_engine', 'xapian'],
    ['defaultsearchtier', 't1'],
    ['t1searchpartition-default', join(base, 'search')],
    ['sync_log', 'yes'],
    ['sync_log_channels', 'squatter'],
  ];
  return lines.map(([key, value]) => `${key}: ${value}`).join('\n') + '\n';
}

/**
 * cyrus.conf of a private instance. Every `cmd=` carries its own `-C`: master does not pass the
 * config on, and a service without it silently uses the system's /etc/imapd.conf.
 */
export function renderCyrusConf(layout: CyrusLayout, ports: CyrusPorts): string {
  const c = `-C ${layout.imapdConf}`;
  return [
    'START {',
    `  recover cmd="ctl_cyrusdb ${c} -r"`,
    '}',
    'SERVICES {',
    `  imap cmd="imapd ${c}" listen="127.0.0.1:${ports.imap}" prefork=0`,
    `  http cmd="httpd ${c}" listen="127.0.0.1:${ports.http}" prefork=0`,
    // -a: no LMTP AUTH on the loopback TCP socket, so the harness can deliver test mail.
    `  lmtp cmd="lmtpd ${c} -a" listen="127.0.0.1:${ports.lmtp}" prefork=0`,
    `  lmtpunix cmd="lmtpd ${c}" listen="${join(layout.base, 'run', 'socket', 'lmtp')}" prefork=0`,
    `  sieve cmd="timsieved ${c}" listen="127.0.0.1:${ports.sieve}" prefork=0`,
    '}',
    'EVENTS {',
    `  checkpoint cmd="ctl_cyrusdb ${c} -c" period=30`,
    '}',
    'DAEMON {',
    `  squatter cmd="squatter ${c} -R -d -n squatter"`,
    '}',
    '',
  ].join('\n');
}
