// Every command tblcli knows, in help order.
import type { CommandSpec } from './spec.ts';
import { tableSpecs } from './table.ts';
import { commitSpecs } from './commits.ts';
import { compactionSpecs } from './compactions.ts';
import { compactionServiceSpecs } from './compaction-services.ts';
import { timelineSpecs } from './timeline.ts';
import { serviceSpecs } from './services.ts';
import { demoSpecs } from './demo.ts';
import { metaSpecs } from './meta.ts';
import { fsviewSpecs } from './fsview.ts';
import { triageSpecs } from './triage.ts';
import { logfileSpecs } from './logfile.ts';
import { archivedSpecs } from './archived.ts';
import { metadataSpecs } from './metadata.ts';

export const COMMANDS: CommandSpec[] = [
  ...tableSpecs,
  ...commitSpecs,
  ...compactionSpecs,
  ...compactionServiceSpecs,
  ...timelineSpecs,
  ...serviceSpecs,
  ...fsviewSpecs,
  ...logfileSpecs,
  ...archivedSpecs,
  ...metadataSpecs,
  ...triageSpecs,
  ...demoSpecs,
  ...metaSpecs,
];
