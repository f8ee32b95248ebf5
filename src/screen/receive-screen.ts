import type { Account } from '../auth/account-registry.js';
import { MailboxError } from '../errors.js';
import type { Invocation, JmapRequest, JmapResponse, JmapSessionInfo } from '../jmap/jmap-types.js';
import type { DecidingRule } from '../policy/judge-address.js';
import type { LoadedLayer } from '../policy/policy-layers.js';
import { senderFactProperties, senderFactsOf, type SenderFacts } from '../trust/sender-authentication.js';
import {
  callOf,
  contentAnswerIndexes,
  dropParsed,
  factsInResponse,
  mailRequest,
  namedEmailIds,
  parsedMessages,
  removeHeld,
  withholdBlobReads,
} from './mail-method-answers.js';
import { judgeReceived, loadInboxLayers, readAccountView, receiveRulesOf, type ReceiveRules } from './receive-rules.js';
import { refillQueryPage } from './refill-query-page.js';
import {
  countsPastPage,
  screenedCaps,
  screenQueryChanges,
  screenQueryOrder,
  screenTooManyChanges,
  type ScreenedCaps,
} from './screened-order.js';
import { checkDownloadedMessage } from './screen-download.js';

export interface ReceiveScreenOptions {
  account: Account;
  session: () => Promise<JmapSessionInfo>;
  /** A read-only lookup through the gate: neither checked nor screened again. */
  lookup: (request: JmapRequest) => Promise<JmapResponse>;
  /** The operator's view (`--include-held`): held mail is judged and counted, and shown. */
  includeHeld?: boolean;
  /** The layers, when a test gives them instead of the files. */
  layers?: () => Promise<LoadedLayer[]>;
  /** How many matches a screened total or position may count (tests give small ones). */
  caps?: ScreenedCaps;
}

/** What the screen held back in one call: how many messages, under which rules. */
export interface HeldReport {
  count: number;
  rules: { layer: string; rule: string; count: number }[];
  /** Held ids the caller asked for by id (they were answered as notFound). */
  requested: string[];
  /** The operator's view: these were shown anyway (their ids, for the text's marks). */
  shownToOperator?: string[];
  /** Blob/get answers withheld (no method says which message a blob belongs to). */
  blobsWithheld?: number;
}

/** Why a message whose sender could not be read was held. */
const unjudged: DecidingRule = { layer: 'default', rule: 'receive.unjudged' };

/** Ids per Email/get lookup call, well under every server's maxObjectsInGet. */
const lookupChunk = 500;

/**
 * The screen stage of one call: before anything reads a batch's answer, messages the operator's
 * receive rules hold back are taken out of every answer that names them, and a listing page that lost
 * some is filled again. With no rule restricting receiving it only reads the policy files, once.
 */
export class ReceiveScreen {
  private rules: Promise<ReceiveRules | undefined> | undefined;
  private readonly held = new Map<string, DecidingRule>();
  private readonly requested = new Set<string>();
  private blobsWithheld = 0;
  private readonly downloadsChecked = new Set<string>();

  constructor(private readonly options: ReceiveScreenOptions) {}

  /** The call's receive rules (read once), or undefined when none restricts receiving. */
  rulesOfCall(): Promise<ReceiveRules | undefined> {
    this.rules ??= (async () => {
      const { account, layers } = this.options;
      if (layers) return receiveRulesOf(await layers(), account, this.options.session);
      const view = await readAccountView(account);
      return receiveRulesOf(await loadInboxLayers(account, view), account, this.options.session, view);
    })();
    return this.rules;
  }

  async screen(request: JmapRequest, response: JmapResponse): Promise<JmapResponse> {
    const rules = await this.rulesOfCall();
    if (!rules) return response;
    // Held mail a content filter found is held without a count, so the count cannot tell what it says.
    const byContent = contentAnswerIndexes(request, response);
    const reported = namedEmailIds({
      methodResponses: response.methodResponses.filter((_, index) => !byContent.has(index)),
    });
    const named = [...namedEmailIds(response)];
    const known = factsInResponse(response);
    const inReport = named.filter((id) => reported.has(id));
    const unreported = named.filter((id) => !reported.has(id));
    const held = await this.judge(inReport, known, rules, true);
    for (const id of await this.judge(unreported, known, rules, false)) held.add(id);
    await this.screenParsed(response, rules);
    if (this.options.includeHeld) return response;
    this.blobsWithheld += withholdBlobReads(response);
    const removal = removeHeld(request, response, (id) => held.has(id));
    removal.requested.forEach((id) => this.requested.add(id));
    const accountId = (await this.options.session()).accountId;
    const depsOf = (index: number) => ({
      accountId,
      lookup: this.options.lookup,
      judge: (ids: readonly string[], facts: ReadonlyMap<string, SenderFacts>) =>
        this.judge(ids, facts, rules, !byContent.has(index)),
      shownOf: (ids: readonly string[]) => this.shownOf(ids, rules),
      pageSize: lookupChunk,
      caps: this.options.caps ?? screenedCaps,
    });
    const counted = new Set<number>();
    for (const [index, [name, answer, callId]] of response.methodResponses.entries()) {
      const call = callOf(request, name, callId);
      if (name === 'Email/query' && call && countsPastPage(call[1], answer)) {
        counted.add(index);
        await screenQueryOrder(request, response, index, depsOf(index));
      } else if (name === 'Email/queryChanges' && call)
        await screenQueryChanges(request, response, index, depsOf(index));
      else if (name === 'error' && answer.type === 'tooManyChanges')
        await screenTooManyChanges(request, response, index, depsOf(index));
    }
    for (const [index, page] of removal.queries) {
      if (!counted.has(index)) await refillQueryPage(request, response, index, page, depsOf(index));
    }
    return response;
  }

  /** Refuses a download unless it names a shown message the blob belongs to (only under receive rules). */
  async checkDownload(blobId: string, mailId: string | undefined): Promise<void> {
    const rules = await this.rulesOfCall();
    // Stryker disable next-line StringLiteral: a download without a mail id is refused before its key is stored
    const key = `${mailId ?? ''}/${blobId}`;
    if (!rules || this.options.includeHeld || this.downloadsChecked.has(key)) return;
    await checkDownloadedMessage(blobId, mailId, {
      accountId: (await this.options.session()).accountId,
      lookup: this.options.lookup,
      isHeld: async (id, facts) => (await this.judge([id], new Map([[id, facts]]), rules, true)).has(id),
    });
    this.downloadsChecked.add(key);
  }

  report(): HeldReport | undefined {
    if (this.held.size === 0 && this.blobsWithheld === 0) return undefined;
    const rules = new Map<string, { layer: string; rule: string; count: number }>();
    for (const rule of this.held.values()) {
      const key = `${rule.layer} ${rule.rule}`;
      const entry = rules.get(key) ?? { layer: rule.layer, rule: rule.rule, count: 0 };
      entry.count += 1;
      rules.set(key, entry);
    }
    return {
      count: this.held.size,
      rules: [...rules.values()],
      requested: [...this.requested],
      ...(this.options.includeHeld ? { shownToOperator: [...this.held.keys()] } : {}),
      ...(this.blobsWithheld > 0 ? { blobsWithheld: this.blobsWithheld } : {}),
    };
  }

  /** Held ids the caller asked for by id, for the summary's wording. */
  requestedHeld(): ReadonlySet<string> {
    return this.requested;
  }

  /** Judges ids; returns the held ones, and records them for the report when `reported`. */
  private async judge(
    ids: readonly string[],
    known: ReadonlyMap<string, SenderFacts>,
    rules: ReceiveRules,
    reported: boolean,
  ): Promise<Set<string>> {
    const record = (id: string, rule: DecidingRule) => {
      if (reported || this.options.includeHeld) this.held.set(id, rule);
    };
    const { facts, unlisted } = await this.factsOf(ids, known);
    const held = new Set<string>();
    for (const id of unlisted) {
      // Listed without its sender: it cannot be judged, so it is not shown under rules that must judge it.
      held.add(id);
      record(id, unjudged);
    }
    // An id the server no longer has carries no content to hold.
    for (const [id, found] of facts) {
      const judgement = judgeReceived(found, rules);
      // Stryker disable next-line LogicalOperator: judgeReceived gives a rule exactly when it holds
      if (judgement.held && judgement.rule) {
        held.add(id);
        record(id, judgement.rule);
      }
    }
    return held;
  }

  /** Which of `ids` exist and are shown under the rules; nothing is recorded (a vanished id is simply not shown). */
  private async shownOf(ids: readonly string[], rules: ReceiveRules): Promise<Set<string>> {
    const { facts } = await this.factsOf(ids, new Map());
    return new Set([...facts].filter(([, found]) => !judgeReceived(found, rules).held).map(([id]) => id));
  }

  /** The sender facts of `ids`: from the answer, the cache, else looked up; `unlisted`: ids listed without them. */
  private async factsOf(
    ids: readonly string[],
    known: ReadonlyMap<string, SenderFacts>,
  ): Promise<{ facts: Map<string, SenderFacts>; unlisted: string[] }> {
    const cache = senderFactsCacheFor(this.options.account);
    const facts = new Map<string, SenderFacts>();
    const unlisted: string[] = [];
    const missing: string[] = [];
    const found = (id: string, got: SenderFacts) => {
      cache.set(id, got);
      facts.set(id, got);
    };
    for (const id of ids) {
      const got = known.get(id) ?? cache.get(id);
      if (got) found(id, got);
      else missing.push(id);
    }
    // Stryker disable next-line ConditionalExpression: a shortcut; with no ids there are no chunks and nothing is sent
    if (missing.length === 0) return { facts, unlisted };
    const { accountId, limits } = await this.options.session();
    const perRequest = Math.max(1, limits.maxCallsInRequest ?? 16);
    const chunks: string[][] = [];
    for (let at = 0; at < missing.length; at += lookupChunk) chunks.push(missing.slice(at, at + lookupChunk));
    const looked = new Map<string, SenderFacts | undefined>();
    const properties = ['id', ...senderFactProperties];
    for (let at = 0; at < chunks.length; at += perRequest) {
      const calls = chunks
        .slice(at, at + perRequest)
        .map((ids, i): Invocation => ['Email/get', { accountId, ids, properties }, `f${i}`]);
      const response = await this.options.lookup(mailRequest(...calls));
      for (const [name, args] of response.methodResponses) {
        if (name === 'error')
          throw new MailboxError({
            code: 'jmap_request_error',
            message: `Checking senders against the operator's receive rules failed: Email/get answered ${String(args.type ?? 'an error')}.`,
            hint: 'Nothing was shown. Run the request again; if it keeps failing, tell your operator.',
          });
        for (const email of Array.isArray(args.list) ? (args.list as (Record<string, unknown> | null)[]) : []) {
          if (typeof email?.id === 'string') looked.set(email.id, senderFactsOf(email, { withSender: true }));
        }
      }
    }
    for (const [id, got] of looked) {
      if (got) found(id, got);
      else unlisted.push(id);
    }
    return { facts, unlisted };
  }

  /** Email/parse reads a message from a blob: it is judged by its own headers, like any received mail. */
  private async screenParsed(response: JmapResponse, rules: ReceiveRules): Promise<void> {
    const parsed = parsedMessages(response);
    // Stryker disable next-line ConditionalExpression: a shortcut; with nothing parsed nothing lacks facts and nothing is judged
    if (parsed.length === 0) return;
    const lacking = parsed.filter((p) => !senderFactsOf(p.email, { withSender: true })).map((p) => p.blobId);
    const looked = new Map<string, SenderFacts>();
    if (lacking.length > 0) {
      const { accountId } = await this.options.session();
      const parse = { accountId, blobIds: lacking, properties: [...senderFactProperties] };
      const answer = await this.options.lookup(mailRequest(['Email/parse', parse, 'p']));
      const got = answer.methodResponses[0]?.[1].parsed;
      for (const [blobId, email] of Object.entries(
        got && typeof got === 'object' ? (got as Record<string, Record<string, unknown>>) : {},
      )) {
        const found = senderFactsOf(email, { withSender: true });
        // Stryker disable next-line ConditionalExpression: an undefined entry reads the same as a missing one below
        if (found) looked.set(blobId, found);
      }
    }
    for (const { index, blobId, email } of parsed) {
      const facts = senderFactsOf(email, { withSender: true }) ?? looked.get(blobId);
      // A parsed message whose headers cannot be read is not shown under rules that must judge it.
      const judgement = facts ? judgeReceived(facts, rules) : undefined;
      if (judgement && !judgement.held) continue;
      this.held.set(`blob:${blobId}`, judgement?.rule ?? unjudged);
      if (!this.options.includeHeld) dropParsed(response, index, blobId);
    }
  }
}

/**
 * Sender facts by email id, per account, for the life of the process (an MCP server serves many
 * calls). Email headers never change (RFC 8621 §4), so an entry never goes stale; the bound caps memory.
 */
export class SenderFactsCache {
  private readonly entries = new Map<string, SenderFacts>();

  constructor(private readonly maxEntries = 20_000) {}

  get(emailId: string): SenderFacts | undefined {
    return this.entries.get(emailId);
  }

  set(emailId: string, facts: SenderFacts): void {
    if (this.entries.has(emailId)) return;
    if (this.entries.size >= this.maxEntries) {
      // Oldest first: Map keeps insertion order.
      const oldest = this.entries.keys().next().value;
      // Stryker disable next-line ConditionalExpression: the map is full here, so it has an oldest key
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(emailId, facts);
  }
}

const caches = new WeakMap<object, SenderFactsCache>();

/** The cache of one account (keyed by the account object the registry hands out). */
export function senderFactsCacheFor(account: object): SenderFactsCache {
  let cache = caches.get(account);
  if (!cache) {
    cache = new SenderFactsCache();
    caches.set(account, cache);
  }
  return cache;
}
