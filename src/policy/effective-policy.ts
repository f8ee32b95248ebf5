import { assertUsable, type LoadedLayer } from './policy-layers.js';
import { policyVersion, type OnOff, type PolicyLayer, type ReceiveMode, type SendMode } from './policy-schema.js';

/**
 * The rules in force for one inbox, each with its layer (what `policy show --json` prints). Numbers take the
 * lowest cap, switches the stricter setting, lists the union; modes stay per layer (judge-address.ts).
 */

export interface Sourced<T> {
  value: T;
  from: PolicyLayer | 'default';
}

interface SourcedEntry {
  entry: string;
  from: PolicyLayer;
}

export interface EffectivePolicy {
  version: typeof policyVersion;
  layers: { layer: PolicyLayer; path: string; present: boolean; error?: string }[];
  send: {
    /** Every layer's mode that is not open; empty means open. Each applies (the strictest verdict wins). */
    modes: Sourced<SendMode>[];
    allow: SourcedEntry[];
    block: SourcedEntry[];
    maxSendsPerHour: Sourced<number> | null;
    maxSendsPerDay: Sourced<number> | null;
    maxRecipients: Sourced<number> | null;
    secretScan: Sourced<OnOff>;
    /** Every layer's attachment directory: a file must lie inside each. */
    attachFrom: Sourced<string>[];
  };
  receive: {
    modes: Sourced<ReceiveMode>[];
    allow: SourcedEntry[];
    block: SourcedEntry[];
  };
  newInboxes: Sourced<OnOff>;
}

type Read<T> = (layer: LoadedLayer) => T | undefined;

function lowest(layers: readonly LoadedLayer[], pick: Read<number>): Sourced<number> | null {
  let best: Sourced<number> | null = null;
  for (const layer of layers) {
    const value = pick(layer);
    if (value !== undefined && (best === null || value < best.value)) best = { value, from: layer.layer };
  }
  return best;
}

/** The `strict` setting in any layer wins, else the first set; both switches default to on. */
function strictSwitch(layers: readonly LoadedLayer[], pick: Read<OnOff>, strict: OnOff): Sourced<OnOff> {
  const strictLayer = layers.find((layer) => pick(layer) === strict);
  if (strictLayer) return { value: strict, from: strictLayer.layer };
  const set = layers.find((layer) => pick(layer) !== undefined);
  return set ? { value: pick(set) as OnOff, from: set.layer } : { value: 'on', from: 'default' };
}

function entries(layers: readonly LoadedLayer[], pick: Read<readonly string[]>): SourcedEntry[] {
  return layers.flatMap((layer) => (pick(layer) ?? []).map((entry) => ({ entry, from: layer.layer })));
}

/** The layers as read, without failing on a broken one (for `policy show`). */
export function describeLayers(layers: readonly LoadedLayer[]): EffectivePolicy['layers'] {
  return layers.map(({ layer, path, present, error }) => ({
    layer,
    path,
    present,
    ...(error ? { error: error.message } : {}),
  }));
}

/** The effective policy of the layers; throws when a layer's file is broken (rules nobody can read refuse). */
export function effectivePolicy(layers: readonly LoadedLayer[]): EffectivePolicy {
  assertUsable(layers);
  return {
    version: policyVersion,
    layers: describeLayers(layers),
    send: {
      modes: layers.flatMap((l) =>
        l.policy.send?.mode && l.policy.send.mode !== 'open' ? [{ value: l.policy.send.mode, from: l.layer }] : [],
      ),
      allow: entries(layers, (l) => l.policy.send?.allow),
      block: entries(layers, (l) => l.policy.send?.block),
      maxSendsPerHour: lowest(layers, (l) => l.policy.send?.maxSendsPerHour),
      maxSendsPerDay: lowest(layers, (l) => l.policy.send?.maxSendsPerDay),
      maxRecipients: lowest(layers, (l) => l.policy.send?.maxRecipients),
      secretScan: strictSwitch(layers, (l) => l.policy.send?.secretScan, 'on'),
      attachFrom: layers.flatMap((l) =>
        l.policy.send?.attachFrom ? [{ value: l.policy.send.attachFrom, from: l.layer }] : [],
      ),
    },
    receive: {
      modes: layers.flatMap((l) =>
        l.policy.receive?.mode && l.policy.receive.mode !== 'open'
          ? [{ value: l.policy.receive.mode, from: l.layer }]
          : [],
      ),
      allow: entries(layers, (l) => l.policy.receive?.allow),
      block: entries(layers, (l) => l.policy.receive?.block),
    },
    newInboxes: strictSwitch(layers, (l) => l.policy.newInboxes, 'off'),
  };
}
