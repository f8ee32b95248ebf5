/** The watch subsystem: the daily crontab job, the in-process daemon, and the wake it runs. */
export {
  installWatch,
  removeWatch,
  watchStatus,
  removeWatchHint,
  type WatchStatus,
  type WatchTarget,
} from './install-watch.js';
export { wake, type WakeResult } from './wake.js';
export { runWatchDaemon } from './watch-daemon.js';
export { watchMarker } from './watch-marker.js';
