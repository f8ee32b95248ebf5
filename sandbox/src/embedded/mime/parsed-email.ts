import { emailFacts, type EmailFacts } from './email-facts.js';
import { convertHeader, type HeaderProperty } from './header-forms.js';
import { parseMessage, type ParsedMessage } from './parse-message.js';

/** How a message's bytes become its parse and its facts; tests pass one that counts the calls. */
export interface MessageParser {
  parse(raw: Buffer): Promise<ParsedMessage>;
  facts(parsed: ParsedMessage): EmailFacts;
}

/** The real parser: postal-mime's tree, RFC 8621 §4.1.3 convenience properties. */
export const defaultMessageParser: MessageParser = { parse: parseMessage, facts: emailFacts };

/**
 * One message's parse and what Email/get, Email/query and SearchSnippet/get derive from it. A
 * message never changes once stored (RFC 8621 §4.1), so each derivation is made at most once and
 * kept: a header section near the size cap is decoded once, not on every request that reads it.
 * What is kept is frozen, since every later request shares it.
 */
export class ParsedEmail {
  private derivedFacts: EmailFacts | undefined;
  private fieldsByName: Map<string, string[]> | undefined;
  private readonly converted = new Map<string, unknown>();

  constructor(
    readonly parsed: ParsedMessage,
    private readonly deriveFacts: (parsed: ParsedMessage) => EmailFacts = emailFacts,
  ) {
    deepFreeze(parsed.headers);
  }

  /** The message's convenience properties, derived on first use. */
  get facts(): EmailFacts {
    if (!this.derivedFacts) {
      const facts = this.deriveFacts(this.parsed);
      // The body lists hold the parts' decoded bytes, which a Buffer cannot be frozen over.
      const { body: _body, ...headerDerived } = facts;
      deepFreeze(headerDerived);
      this.derivedFacts = Object.freeze(facts);
    }
    return this.derivedFacts;
  }

  /** The raw values of the top-level header fields of one name (case-insensitive), in message order. */
  fieldValues(name: string): readonly string[] {
    if (!this.fieldsByName) {
      const byName = new Map<string, string[]>();
      for (const header of this.parsed.headers) {
        const key = header.name.toLowerCase();
        const values = byName.get(key);
        if (values) values.push(header.value);
        else byName.set(key, [header.value]);
      }
      this.fieldsByName = deepFreeze(byName);
    }
    return this.fieldsByName.get(name.toLowerCase()) ?? [];
  }

  /** A `header:` property's value (RFC 8621 §4.1.3): the last instance, or every one with `:all`. */
  header(property: HeaderProperty): unknown {
    const key = `${property.form}:${String(property.isAll)}:${property.name.toLowerCase()}`;
    if (this.converted.has(key)) return this.converted.get(key);
    const values = this.fieldValues(property.name);
    const last = values[values.length - 1];
    // Absent fields are not kept, so asking for many names that are not there cannot grow the cache.
    if (last === undefined) return property.isAll ? [] : null;
    const value = property.isAll
      ? values.map((one) => convertHeader(one, property.form))
      : convertHeader(last, property.form);
    this.converted.set(key, deepFreeze(value));
    return value;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (value instanceof Map) {
    for (const entry of value.values()) deepFreeze(entry);
    return value;
  }
  Object.freeze(value);
  for (const entry of Object.values(value)) deepFreeze(entry);
  return value;
}
