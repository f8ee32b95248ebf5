/** RFC 3834: never auto-answer a program's mail, or two agents answer each other forever; every listing preset asks. */
export const automaticHeaderProperties = [
  'header:Auto-Submitted:asText',
  'header:Precedence:asText',
  'header:List-Id:asText',
] as const;

/** Why a message counts as automatic (for example "Auto-Submitted: auto-replied"), or undefined. */
export function automaticReason(email: Record<string, unknown>): string | undefined {
  const header = (name: string): string | undefined => {
    const value = email[`header:${name}:asText`];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const autoSubmitted = header('Auto-Submitted');
  // "no" is the only value that means a person sent it; parameters may follow a ";".
  if (autoSubmitted && autoSubmitted.split(';')[0]?.trim().toLowerCase() !== 'no')
    return `Auto-Submitted: ${autoSubmitted}`;
  const precedence = header('Precedence')?.toLowerCase();
  if (precedence && ['bulk', 'list', 'junk'].includes(precedence)) return `Precedence: ${precedence}`;
  const listId = header('List-Id');
  if (listId) return `List-Id: ${listId}`;
  return undefined;
}
