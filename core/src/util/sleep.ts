/**
 * Resolves after `ms` milliseconds. With `unref`, the wait does not keep the process alive (a
 * background task's backoff must not delay the exit of a server that is shutting down).
 */
export function sleep(ms: number, options: { readonly unref?: boolean } = {}): Promise<void> {
  return new Promise(resolve => {
    const handle = setTimeout(resolve, ms)
    if (options.unref === true) handle.unref()
  })
}
