/**
 * What the skill's script carries inside itself, so that a single file runs with no package folder
 * around it. Elsewhere (the tsc build, the package's bundle) this is undefined and files are read
 * from the package; scripts/build.mjs replaces this module's body when it bundles the skill.
 */

/** One answer of the CLI, captured at build time from the real program. */
export interface PrerenderedPage {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** commander wraps --help to a terminal's width: only reusable when stdout is not a terminal. */
  widthDependent: boolean;
}

export interface BundledAssets {
  version: string;
  /** Package files by path relative to the package root, e.g. "presets/list_inbox.json". */
  files: Readonly<Record<string, string>>;
  /** CLI help answers by their argv joined with NUL; loaded only for an argv that may ask for one (the bulk of the build). */
  loadPages(): Promise<Readonly<Record<string, PrerenderedPage>>>;
}

export const bundledAssets: BundledAssets | undefined = undefined;
