/** One worker per core, as long as they all fit in half of the free memory (at least one). */
export function defaultWorkerCount(cores: number, freeBytes: number, bytesPerWorker: number): number {
  return Math.max(1, Math.min(cores, Math.floor(freeBytes / 2 / bytesPerWorker)));
}
