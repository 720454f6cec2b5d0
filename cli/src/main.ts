#!/usr/bin/env node
import { runCli } from './program.js'

// The CLI's only reader of the process: arguments, environment, standard streams.
runCli(process.argv.slice(2), {
  out: text => process.stdout.write(text),
  err: text => process.stderr.write(text),
  stdoutIsTty: process.stdout.isTTY === true,
  stderrIsTty: process.stderr.isTTY === true,
  env: process.env,
  stdin: process.stdin,
  setExitCode: () => undefined,
}).then(
  code => {
    process.exitCode = code
  },
  e => {
    process.stderr.write(`sluice: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exitCode = 1
  },
)
