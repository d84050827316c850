// `commits show` on a timeline large enough for the built CLI to decode with a worker thread
// (MIN_FILES_FOR_WORKER): the built binary prints exactly what the in-process run (sources: one
// thread) prints, and a bad file deep in the timeline is still one named error with exit 1.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyCommitMetadata, encodeCommitMetadataJson, newWriteStat } from '../../src/metadata/index.ts';
import { MIN_FILES_FOR_WORKER } from '../../src/table/commit-totals.ts';
import { runCli } from '../support/run-cli.ts';

const BIN = join(import.meta.dirname, '../../bin/tblcli.js');
const N = MIN_FILES_FOR_WORKER + 300;

function bigTimeline(): { dir: string; instants: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'tblcli-big-'));
  const meta = join(dir, '.hoodie');
  mkdirSync(meta);
  writeFileSync(join(meta, 'hoodie.properties'), 'hoodie.table.name=big\nhoodie.table.type=COPY_ON_WRITE\nhoodie.table.version=6\nhoodie.timeline.layout.version=1\n');
  const instants: string[] = [];
  for (let i = 0; i < N; i++) {
    const t = String(20250101000000000 + i * 1000);
    instants.push(t);
    const m = emptyCommitMetadata();
    m.operationType = 'UPSERT';
    m.partitionToWriteStats[`p${i % 4}`] = [
      newWriteStat({ fileId: `f${i}`, path: `p${i % 4}/f${i}.parquet`, prevCommit: i % 3 === 0 ? 'null' : instants[0]!, partitionPath: `p${i % 4}`, numWrites: i, numUpdateWrites: i % 7, totalWriteBytes: 1024 * i }),
    ];
    writeFileSync(join(meta, `${t}.commit.requested`), '');
    writeFileSync(join(meta, `${t}.inflight`), '');
    writeFileSync(join(meta, `${t}.commit`), encodeCommitMetadataJson(m));
  }
  return { dir, instants };
}

describe(`commits show over ${N} instants (built CLI, worker thread)`, () => {
  it('prints what the single-threaded in-process run prints (table and --json)', async () => {
    const { dir } = bigTimeline();
    for (const extra of [[], ['--json']]) {
      const built = spawnSync(process.execPath, [BIN, 'commits', 'show', '--path', dir, ...extra], { encoding: 'utf8', maxBuffer: 1 << 28 });
      expect(built.status, built.stderr).toBe(0);
      const inProcess = await runCli(['commits', 'show', '--path', dir, ...extra]);
      expect(inProcess.exitCode).toBe(0);
      expect(built.stdout).toBe(inProcess.stdout);
    }
  });

  it('an empty completed commit deep in the timeline → exit 1, one line naming it', () => {
    const { dir, instants } = bigTimeline();
    const bad = instants[700]!;
    writeFileSync(join(dir, '.hoodie', `${bad}.commit`), '');
    writeFileSync(join(dir, '.hoodie', `${instants[100]}.commit`), '{"partitionToWriteStats": {');
    const r = spawnSync(process.execPath, [BIN, 'commits', 'show', '--path', dir], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    // newest first: instant 700 comes before instant 100
    expect(r.stderr.trimEnd()).toBe(`error: ${join(dir, '.hoodie', `${bad}.commit`)}: empty completed commit file for instant ${bad} (a writer crashed while completing it?)`);
  });
});
