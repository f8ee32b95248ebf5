/** The watch subsystem: the daily crontab job, the in-process daemon, and the wake it runs. */
export {
  installWatch,
  removeWatch,
  watchStatus,
  removeWatchHint,
  type WatchStatus,
  type WatchTarget,
  type InstallWatchOptions,
} from './install-watch.js';
export { wake, type WakeOptions, type WakeResult, type WakeJmap } from './wake.js';
export { runWatchDaemon, type WatchDaemonOptions } from './watch-daemon.js';
export { proposeWakeCommand, type WakeCommandProposal } from './propose-wake-command.js';
export { wakePrompt, type WakePromptInput } from './wake-prompt.js';
export { dailySchedule, watchMarker, nextDailyRun } from './watch-marker.js';
export { readWatchSettings, writeWatchSettings, watchPaths, type WatchSettings } from './watch-settings.js';
export { expandWakeCommand } from './run-wake-command.js';
