import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BENCHMARKS } from './benchmarks/index.js'
import { type BenchResult, runBenchmark } from './harness.js'
import { mergeIntoDoc } from './report.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

function parseArgs(argv: string[]): { names: string[]; runs?: number; write: boolean; list: boolean } {
  const names: string[] = []
  let runs: number | undefined
  let write = true
  let list = false
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--runs') runs = Number(argv[++i])
    else if (a === '--no-write') write = false
    else if (a === '--list') list = true
    else names.push(a)
  }
  return { names, runs, write, list }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2))
  if (args.list) {
    for (const b of BENCHMARKS) console.log(`${b.name}\t${b.description}`)
    return
  }
  const unknown = args.names.filter(n => !BENCHMARKS.some(b => b.name === n))
  if (unknown.length > 0) throw new Error(`unknown benchmark(s): ${unknown.join(', ')} (use --list)`)
  const selected = args.names.length === 0 ? BENCHMARKS : BENCHMARKS.filter(b => args.names.includes(b.name))
  const results: BenchResult[] = []
  for (const b of selected) {
    console.error(`running ${b.name} ...`)
    const r = await runBenchmark(b, args.runs)
    results.push(r)
    console.error(
      `  ${b.name}: subject ${r.subject.median.toFixed(1)} vs baseline ${r.baseline.median.toFixed(1)} ${r.unit}, ratio ${r.ratio.toFixed(3)}`,
    )
  }
  console.log(JSON.stringify(results, null, 2))
  if (args.write) {
    const dir = join(root, 'bench', 'results')
    mkdirSync(dir, { recursive: true })
    writeFileSync(
      join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
      JSON.stringify(results, null, 2),
    )
    const docPath = join(root, 'docs', 'benchmarks.md')
    let existing: string | undefined
    try {
      existing = readFileSync(docPath, 'utf8')
    } catch {
      existing = undefined
    }
    writeFileSync(docPath, mergeIntoDoc(existing, results))
  }
}

main().catch(e => {
  console.error(e)
  process.exit(1)
})
