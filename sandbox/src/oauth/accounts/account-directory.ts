import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { JsonStoreFile } from '../json-store-file.js';

/** A person: the owner of inboxes on the OAuth path (the sandbox's stand-in for a dashboard account). */
export interface PersonRecord {
  /** UUID; the `sub` of this person's access tokens. */
  id: string;
  /** The name the person signs in with (compared case-insensitively). */
  name: string;
  createdAt: string;
}

/** One inbox as the service knows it: a stable UUID apart from its JMAP account id (the address). */
export interface InboxRecord {
  /** UUID: the inbox list's accountId and the value of X-Service-Account-Id (spec §2.1, §4.2). */
  accountId: string;
  /** Full address, lowercase; also the JMAP account id. */
  address: string;
  /** The owning person; absent for an inbox an agent signed up for itself (proof of work). */
  ownerId?: string;
  createdAt: string;
  /** When the inbox became the person's (its creation, for an inbox a person made). */
  linkedAt?: string;
}

const directoryFile = z.object({
  version: z.literal(1),
  people: z.array(z.object({ id: z.uuid(), name: z.string().min(1), createdAt: z.string() })),
  inboxes: z.array(
    z.object({
      accountId: z.uuid(),
      address: z.string().min(3),
      ownerId: z.uuid().optional(),
      createdAt: z.string(),
      linkedAt: z.string().optional(),
    }),
  ),
});

/**
 * People and the inboxes they own, with every inbox's UUID; kept in `<dir>/directory.json` when a
 * directory is given (written whole, atomically, one write at a time).
 */
export class AccountDirectory {
  private readonly people = new Map<string, PersonRecord>();
  private readonly inboxes = new Map<string, InboxRecord>();
  private readonly file: JsonStoreFile<z.infer<typeof directoryFile>>;

  private constructor(
    path: string | undefined,
    private readonly now: () => number,
  ) {
    this.file = new JsonStoreFile(path, () => ({
      version: 1 as const,
      people: [...this.people.values()],
      inboxes: [...this.inboxes.values()],
    }));
  }

  /** Opens the directory, loading what an earlier run kept in `dir`. */
  static async open(dir: string | undefined, now: () => number): Promise<AccountDirectory> {
    const directory = new AccountDirectory(dir === undefined ? undefined : join(dir, 'directory.json'), now);
    const file = await directory.file.read(directoryFile);
    for (const person of file?.people ?? []) directory.people.set(person.id, person);
    for (const inbox of file?.inboxes ?? []) directory.inboxes.set(inbox.accountId, inbox);
    return directory;
  }

  /** A person by id. */
  person(id: string): PersonRecord | undefined {
    return this.people.get(id);
  }

  /** A person by sign-in name, case-insensitively. */
  personNamed(name: string): PersonRecord | undefined {
    const wanted = name.toLowerCase();
    for (const person of this.people.values()) if (person.name.toLowerCase() === wanted) return person;
    return undefined;
  }

  /** The person with this name, created on first sign-in. */
  async signIn(name: string): Promise<PersonRecord> {
    const known = this.personNamed(name);
    if (known) return known;
    const person: PersonRecord = { id: randomUUID(), name, createdAt: this.timestamp() };
    this.people.set(person.id, person);
    await this.file.save();
    return person;
  }

  /** An inbox by its UUID. */
  inbox(accountId: string): InboxRecord | undefined {
    return this.inboxes.get(accountId.toLowerCase());
  }

  /** An inbox by address, case-insensitively. */
  inboxAt(address: string): InboxRecord | undefined {
    const wanted = address.toLowerCase();
    for (const inbox of this.inboxes.values()) if (inbox.address === wanted) return inbox;
    return undefined;
  }

  /** The inbox `accountId` when `personId` owns it (spec §4.2 rule 4), else undefined. */
  ownedInbox(personId: string, accountId: string): InboxRecord | undefined {
    const inbox = this.inbox(accountId);
    return inbox?.ownerId === personId ? inbox : undefined;
  }

  /** A person's inboxes, oldest first. */
  inboxesOf(personId: string): InboxRecord[] {
    return [...this.inboxes.values()]
      .filter((inbox) => inbox.ownerId === personId)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Records an inbox with a fresh UUID (owned by `ownerId` when given); an address already known is returned as it is. */
  async addInbox(address: string, ownerId?: string): Promise<InboxRecord> {
    const known = this.inboxAt(address);
    if (known) return known;
    const at = this.timestamp();
    const inbox: InboxRecord = {
      accountId: randomUUID(),
      address: address.toLowerCase(),
      createdAt: at,
      ...(ownerId === undefined ? {} : { ownerId, linkedAt: at }),
    };
    this.inboxes.set(inbox.accountId, inbox);
    await this.file.save();
    return inbox;
  }

  private timestamp(): string {
    return new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
}
