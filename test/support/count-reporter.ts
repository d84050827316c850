// Prints the plain closing line CI recognises: "N passed, N failed[, N skipped]".
import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

export default class CountReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of modules) {
      let failedHere = 0;
      for (const t of m.children.allTests()) {
        const s = t.result().state;
        if (s === 'passed') passed++;
        else if (s === 'failed') failedHere++;
        else skipped++;
      }
      // a file that failed without a failed test (an import error, an empty suite, a hook): one failure
      if (m.state() === 'failed' && failedHere === 0) failedHere = 1;
      failed += failedHere;
    }
    failed += errors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
    // .ci/run folds these into its own closing line
    if (process.env.TBLCLI_COUNT_FILE) writeFileSync(process.env.TBLCLI_COUNT_FILE, `${passed} ${failed} ${skipped}\n`);
  }
}
