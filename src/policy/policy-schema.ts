import * as z from 'zod';

/** One policy file per layer, versioned; unknown keys are refused (a misspelt rule must not mean "no rule"). */

export const sendModes = ['open', 'known', 'allowlist', 'confirm', 'off'] as const;
export type SendMode = (typeof sendModes)[number];
export const receiveModes = ['open', 'allowlist'] as const;
export type ReceiveMode = (typeof receiveModes)[number];
export const onOff = ['on', 'off'] as const;
export type OnOff = (typeof onOff)[number];

export const policyVersion = 1;

const cap = z.number().int().min(0).max(1_000_000);
const entries = z.array(z.string().min(1).max(320)).max(10_000);

export const policyFileSchema = z.strictObject({
  version: z.literal(policyVersion),
  send: z
    .strictObject({
      mode: z.enum(sendModes).optional(),
      allow: entries.optional(),
      block: entries.optional(),
      maxSendsPerHour: cap.optional(),
      maxSendsPerDay: cap.optional(),
      maxRecipients: cap.optional(),
      secretScan: z.enum(onOff).optional(),
      /** Absolute directory: files to attach must lie inside it. */
      attachFrom: z.string().min(1).max(4096).optional(),
    })
    .optional(),
  receive: z
    .strictObject({ mode: z.enum(receiveModes).optional(), allow: entries.optional(), block: entries.optional() })
    .optional(),
  newInboxes: z.enum(onOff).optional(),
});

export type PolicyFile = z.infer<typeof policyFileSchema>;
export type ReceiveRules = NonNullable<PolicyFile['receive']>;

/** Which file a rule comes from; listed from the broadest to the narrowest. */
export const policyLayers = ['machine', 'user', 'inbox'] as const;
export type PolicyLayer = (typeof policyLayers)[number];

export const emptyPolicy: PolicyFile = Object.freeze({ version: policyVersion });
