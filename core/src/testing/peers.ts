import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Test peers: the programs some suites check Sluice against (pyarrow, pyiceberg and pyfluss in the
 * Python virtualenv `.ci/.venv`, moto's server in the same venv, the official Fluss Java client
 * built by Maven). `npm run peers` installs all of them. A suite that needs a peer asks
 * `peerAvailable` at collection time: when the peer is missing it prints one line naming the suite,
 * what is missing and that command, and the suite skips; with `SLUICE_REQUIRE_PEERS=1` (CI) a
 * missing peer fails the suite instead.
 */

/** The command that installs every test peer. */
export const PEERS_COMMAND = 'npm run peers'

/** The repository root (this file is `core/src/testing/peers.ts`, or its build in `core/dist/testing`). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** The Python interpreter of the test peers' virtualenv. */
export const PEER_PYTHON = join(REPO_ROOT, '.ci', '.venv', 'bin', 'python')

/** moto's standalone server, installed into the same virtualenv. */
export const PEER_MOTO_SERVER = join(REPO_ROOT, '.ci', '.venv', 'bin', 'moto_server')

/** The Maven project of the Java compatibility driver (test/compat/java). */
export const PEER_JAVA_DIR = join(REPO_ROOT, 'test', 'compat', 'java')

/** What a suite needs: Python modules from the venv, the Java driver, moto's server. */
export interface PeerNeeds {
  readonly python?: readonly string[]
  readonly java?: boolean
  readonly moto?: boolean
}

/** The environment variable with which CI asks for every peer to be present (`=1`). */
export const PEERS_REQUIRED_ENV = 'SLUICE_REQUIRE_PEERS'

/** True when CI asked for every peer to be present (`SLUICE_REQUIRE_PEERS=1`). */
export function peersRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[PEERS_REQUIRED_ENV] === '1'
}

const probed = new Map<string, string | null>()

/** Why the needed peers cannot be used, or null when they all can. */
export function peerProblem(needs: PeerNeeds): string | null {
  const key = JSON.stringify(needs)
  if (!probed.has(key)) probed.set(key, probe(needs))
  return probed.get(key) ?? null
}

function probe(needs: PeerNeeds): string | null {
  if (needs.python !== undefined || needs.moto === true) {
    if (!existsSync(PEER_PYTHON)) return 'no Python test peers (.ci/.venv is missing)'
  }
  if (needs.python !== undefined && needs.python.length > 0) {
    const modules = needs.python.join(', ')
    const r = spawnSync(PEER_PYTHON, ['-c', `import ${modules}`], { encoding: 'utf8', timeout: 60_000 })
    if (r.error) return `.ci/.venv/bin/python cannot run (${r.error.message})`
    if (r.status !== 0) return `.ci/.venv cannot import ${modules} (${lastLine(r.stderr)})`
  }
  if (needs.moto === true && !existsSync(PEER_MOTO_SERVER)) return 'moto_server is not in .ci/.venv'
  if (needs.java === true) {
    const built =
      existsSync(join(PEER_JAVA_DIR, 'target', 'classes', 'io', 'sluice', 'compat', 'Main.class')) &&
      existsSync(join(PEER_JAVA_DIR, 'target', 'classpath.txt'))
    if (!built) return 'the Java compatibility driver is not built (test/compat/java/target)'
    const java = spawnSync('java', ['-version'], { encoding: 'utf8', timeout: 60_000 })
    if (java.error || java.status !== 0) return 'no java on the PATH'
  }
  return null
}

const lastLine = (text: string) => text.trim().split('\n').pop() ?? ''

/**
 * Whether `suite` can run with its peers. When they are missing: throws with
 * `SLUICE_REQUIRE_PEERS=1`, otherwise prints `skipped <suite>: <what is missing>; run `npm run
 * peers` to enable it` and returns false (the suite then skips, e.g. `describe.skipIf(!ok)`).
 */
export function peerAvailable(
  suite: string,
  needs: PeerNeeds,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const problem = peerProblem(needs)
  if (problem === null) return true
  if (peersRequired(env)) {
    throw new Error(
      `${suite} needs test peers, and SLUICE_REQUIRE_PEERS=1: ${problem} (run \`${PEERS_COMMAND}\`)`,
    )
  }
  console.warn(skipLine(suite, problem))
  return false
}

/** The one line a skipped suite prints. */
export function skipLine(suite: string, problem: string): string {
  return `skipped ${suite}: ${problem}; run \`${PEERS_COMMAND}\` to enable it`
}
