import { createRequire } from 'node:module'

const load = createRequire(import.meta.url)

/**
 * Loads a package with a native (per-platform) binary if it is installed here. Bundles that cannot
 * carry native binaries (Lambda functions built by esbuild, other CPU architectures) get undefined
 * and use the portable fallback instead.
 */
export function optionalModule<T>(name: string): T | undefined {
  try {
    return load(name) as T
  } catch {
    return undefined
  }
}
