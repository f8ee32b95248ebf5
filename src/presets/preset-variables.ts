import { MailboxError } from '../errors.js';
import type { Preset } from './preset-schema.js';
import { omitValue, varsMissingError } from './substitute-variables.js';

/** The caller's vars: defaults applied, formats normalised, required ones checked at once, absent ones omitted. */
export function presetVariables(
  preset: Preset,
  name: string,
  given: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const vars: Record<string, unknown> = { ...given };
  const missing: string[] = [];
  for (const [key, decl] of Object.entries(preset.variables)) {
    let value = given[key];
    if ((value === undefined || value === '') && decl.default !== undefined) value = decl.default;
    if (value === undefined || value === '' || value === null) {
      if (decl.required) missing.push(key);
      else vars[key] = omitValue;
      continue;
    }
    vars[key] = normalise(value, decl.format, key, name);
  }
  if (missing.length > 0) throw varsMissingError(missing.sort());
  const oneOf = preset.atLeastOneOf;
  if (oneOf && !oneOf.some((key) => vars[key] !== omitValue && vars[key] !== undefined))
    throw new MailboxError({
      code: 'vars_missing',
      message: `Preset ${name} needs at least one of ${oneOf.join(', ')}.`,
      hint: `Pass e.g. {"${oneOf[0] ?? 'TEXT'}": "…"} in vars.`,
      details: { missing: oneOf },
    });
  return vars;
}

function normalise(
  value: unknown,
  format: Preset['variables'][string]['format'],
  key: string,
  preset: string,
): unknown {
  if (format === 'integer') {
    const n = typeof value === 'number' ? value : Number(String(value).trim());
    if (!Number.isInteger(n) || n < 0)
      throw invalid(`${key} must be a whole number, got ${JSON.stringify(value)}`, preset);
    return n;
  }
  if (format === 'address_list') return addressList(value, key, preset);
  if (format === 'string' && typeof value !== 'string')
    return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
  return value;
}

/** "a@x, Bob <b@y>" or ["a@x"] or [{email, name}] → [{email, name?}]. */
function addressList(value: unknown, key: string, preset: string): { email: string; name?: string }[] {
  const items = Array.isArray(value)
    ? value
    : typeof value === 'string'
      ? value.split(/[,;](?=(?:[^"]*"[^"]*")*[^"]*$)/)
      : [value];
  const list = items
    .map((item) => {
      if (item && typeof item === 'object' && typeof (item as { email?: unknown }).email === 'string') {
        const { email, name } = item as { email: string; name?: unknown };
        return typeof name === 'string' && name ? { email: email.trim(), name } : { email: email.trim() };
      }
      const text = String(item).trim();
      const angle = /^(.*?)\s*<([^<>\s]+@[^<>\s]+)>$/.exec(text);
      if (angle?.[2]) {
        const name = angle[1]?.replace(/^"|"$/g, '').trim();
        return name ? { email: angle[2], name } : { email: angle[2] };
      }
      return { email: text };
    })
    .filter((a) => a.email !== '');
  const bad = list.find((a) => !/^[^@\s]+@[^@\s]+$/.test(a.email));
  if (bad || list.length === 0) throw invalid(`${key} must be e-mail addresses, got ${JSON.stringify(value)}`, preset);
  return list;
}

function invalid(message: string, preset: string): MailboxError {
  return new MailboxError({
    code: 'vars_invalid',
    message: `${message} (preset ${preset}).`,
    hint: 'Fix the value in vars; help topic "presets" shows each variable with an example.',
    next: { operation: 'help', input: { topic: 'presets' } },
  });
}
