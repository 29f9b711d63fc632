/**
 * How `npm start` stands in for a deployed EventBridge schedule: the task once now, then every
 * `intervalSeconds` (0 or less: never), a slow run never overlapped by the next tick (overlapping
 * runs would be safe, just wasted). The timer does not keep the process alive.
 */
export function everyInterval(intervalSeconds: number, task: () => Promise<void>): () => void {
  if (!(intervalSeconds > 0)) return () => undefined;
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      await task();
    } finally {
      running = false;
    }
  };
  const timer = setInterval(tick, intervalSeconds * 1000);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}
