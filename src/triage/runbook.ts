// What each finding means and the next step, in the words of the incident runbooks
// (shared/reference/incidents.md). One place, so `collisions`, `orphans` and `doctor` say the same thing.
import type { CollisionKind, OrphanKind } from './types.ts';

const KEEP_TIMELINE =
  'Do not "fix" by deleting files under the table: the timeline still references them; stop the offending writer, keep the metadata intact, restore from a clean checkpoint.';

export const COLLISION_TEXT: Record<CollisionKind, { meaning: string; nextStep: string }> = {
  'duplicate-create': {
    meaning:
      'Two write contexts believe they own the same file group (DuplicateFileIdException). Two different created fileIds point to multiple writers: two jobs writing one table path, or state restore handing one write context to two subtasks.',
    nextStep: `Check how many jobs write this table path (one writer, or an external lock so only one job commits at a time); did the last restore change the parallelism? ${KEEP_TIMELINE}`,
  },
  'overlapping-writers': {
    meaning:
      'Instants in .hoodie overlap in time and both name this fileId: two writers (or two jobs) wrote one file group concurrently. Legitimate only under non-blocking concurrency control.',
    nextStep: `Check how many jobs write this table path; do instants in .hoodie overlap in time (an inflight delta commit next to a completed commit with nearly the same timestamp, both naming the fileId)? ${KEEP_TIMELINE}`,
  },
  'service-race': {
    meaning:
      'create_file_id == delete_file_id: an async table service (compaction, clustering) overlapping the writer; clustering retires fileIds while the writer creates them.',
    nextStep: `Pause async compaction / clustering in the job and run them offline in a quiet window. ${KEEP_TIMELINE}`,
  },
  'write-under-pending-plan': {
    meaning:
      'A commit wrote this file group while a pending compaction or clustering plan holds it: compaction writes a new base file for a fileId while the writer appends to the same file group.',
    nextStep:
      'Pause async compaction; a pending compaction must be investigated before re-running, or it may fail again on inconsistent files. Keep the timeline intact.',
  },
  'bucket-duplicate': {
    meaning:
      'With the bucket index the fileId is a fixed "room number" derived from the bucket: two fileIds with the same bucket in one partition mean two writers hashed keys to the same bucket and each created its own file group.',
    nextStep: `Check how many jobs write this table path; did the last restore change the parallelism? ${KEEP_TIMELINE}`,
  },
  'bucket-missing-prefix': {
    meaning:
      'Bucket index after a non-bucket insert: files written by a plain insert have UUID fileIds; a later upsert fails parsing the bucket id (NumberFormatException).',
    nextStep:
      'Stop non-bucket inserts into this table path; rewrite the affected partition with the bucket index writer. Keep the timeline intact.',
  },
  'bucket-out-of-range': {
    meaning: 'A bucket number at or above the configured bucket count: the bucket count was changed after data was written.',
    nextStep:
      'Bucket count cannot change after data is written without rewriting the table: restore the old bucket count in the job, or rewrite the table.',
  },
  'duplicate-write-token': {
    meaning:
      'Two base files of one file group with the same instant but different write tokens: a retried or restored task wrote the file twice (older connector versions had write-token bugs, fixed around 0.13).',
    nextStep: `Check which file the instant's write stats name (commits showfiles); did the last restore change the parallelism? ${KEEP_TIMELINE}`,
  },
  'overlapping-log-appends': {
    meaning:
      'Log files of one file group appended by instants that overlap in time: two writers appended to the same file group. Legitimate only under non-blocking concurrency control.',
    nextStep: `Check how many jobs write this table path and whether the table is configured for non-blocking concurrency control. ${KEEP_TIMELINE}`,
  },
  'duplicate-keys': {
    meaning:
      'The same record key in two file groups of one partition: FLINK_STATE index without index.bootstrap.enabled=true inserts historical keys again into new file groups.',
    nextStep:
      'Set index.bootstrap.enabled=true for the Flink job (or use the bucket index), then deduplicate the partition by rewriting it. Do not delete files under the table.',
  },
};

export const ORPHAN_TEXT: Record<OrphanKind, string> = {
  'flink-leftover': 'Flink file-sink part file that nobody will finish (zombie .inprogress./.pending. file of a killed task)',
  'uncommitted-file': 'data file not referenced by any completed instant',
  'marker-dir': 'marker directory left behind',
  'stuck-instant': 'pending instant older than --older-than with no live heartbeat: a dead writer, a job without checkpoints, or a long single-writer job (those write no heartbeat)',
  unparseable: 'file name does not parse as a Hudi file',
  'outside-partition': 'Hudi data file in a directory without .hoodie_partition_metadata',
};

/** The fix for stuck (failed) writes, named by doctor and orphans. */
export const STUCK_INSTANT_FIX =
  'A stuck requested/inflight instant with no heartbeat: check that checkpointing is enabled for the job and that no writer is running, then roll the failed writes back as Hudi\'s next writer would: `tblcli rollback failed` (dry run), then `tblcli rollback failed --yes`. Keep the timeline intact.';

export const PENDING_COMPACTION_FIX =
  'A failed compaction is not retried automatically; investigate the plan (`compactions show all`, `compaction validate`), then `tblcli compaction run` (rolls a failed attempt back and retries it) or `tblcli compaction unschedule --instant <t>` / `compaction unscheduleFileId --fileId <id>` to drop it.';

export const ORPHAN_NEXT_STEP: Record<OrphanKind, string> = {
  'flink-leftover': 'Only files older than the threshold are safe to remove (`tblcli orphans --delete --yes`); a live in-progress file belongs to the current checkpoint.',
  'uncommitted-file':
    'Deletable only once the instant is off the timeline or its heartbeat file has expired. A pending instant without a heartbeat (single-writer Spark/Flink jobs and compactions write none) may still be running: once no writer runs, roll it back with `tblcli rollback failed --yes` (or `tblcli commit rollback --commit <t>`), which deletes its files the Hudi way; orphans then finds nothing left of it.',
  'marker-dir': 'A pending instant\'s markers are what its rollback reads: roll it back with `tblcli rollback failed --yes`, which removes them; markers of a completed or rolled-back instant: `tblcli marker delete --commit <t>` or `tblcli orphans --delete --yes`.',
  'stuck-instant': 'Check that checkpointing is enabled for the job and that no writer is running, then roll the failed writes back, newest first, as Hudi\'s next writer would: `tblcli rollback failed` (dry run) and `tblcli rollback failed --yes`. A pending compaction: `tblcli compaction run` retries it, `tblcli compaction unschedule` removes its plan. Keep the timeline intact.',
  unparseable: 'Check what wrote it; quarantine with `tblcli orphans --delete --yes` if nothing needs it.',
  'outside-partition': 'Check what wrote it; readers never see it.',
};
