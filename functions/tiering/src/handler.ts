/**
 * Lambda entry point of the tiering function, invoked by the EventBridge Scheduler schedule.
 * Until the tiering round is wired in, every invocation fails loudly so that no schedule appears to work.
 */
export async function handler(): Promise<never> {
  throw new Error('Sluice tiering is not available yet: the tiering round is not wired into this handler.')
}
