import { presentJmapResult as presentJmapText } from '../present/present-jmap-result.js';
import type { JmapRequestResult } from '../request/run-jmap-request.js';
import type { NextStep } from '../errors.js';
import type { FrontDoor } from '../render/front-door.js';
import type { Presentation } from '../render/present-result.js';

/**
 * jmap_request's presentation in both doors: the compact text with mail content fenced once per
 * message (src/present/present-jmap-result.ts), next steps worded for the door, and a failure when
 * any call or record failed. The summary leads, so the CLI can still show it beside --json.
 */
export function presentJmapResult(
  result: unknown,
  door: FrontDoor,
  describeNext: (next: NextStep) => string,
): Presentation {
  const typed = result as JmapRequestResult & { inbox?: string };
  const shown = presentJmapText(typed, door, { describeNext });
  // A connected account's result names the inbox it acted for (operations/connected/inbox-input.ts).
  const text = typed.inbox === undefined ? shown.text : `Inbox: ${typed.inbox}\n${shown.text}`;
  return { text, lead: [typed.summary], isError: shown.isFailure };
}
