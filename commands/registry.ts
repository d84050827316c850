// Every command tblcli knows, in help order, loaded by family: a command line loads only the
// families its first word can name (`--version` loads none), since compiling every spec module costs
// a few milliseconds of each start. FIRST_WORDS is checked against the specs by a test.
import type { CommandSpec } from './spec.ts';

const FAMILIES = {
  table: async () => (await import('./table.ts')).tableSpecs,
  commits: async () => (await import('./commits.ts')).commitSpecs,
  compactions: async () => (await import('./compactions.ts')).compactionSpecs,
  compactionServices: async () => (await import('./compaction-services.ts')).compactionServiceSpecs,
  clustering: async () => (await import('./clustering.ts')).clusteringSpecs,
  archival: async () => (await import('./archival.ts')).archivalSpecs,
  remediation: async () => (await import('./remediation.ts')).remediationSpecs,
  timeline: async () => (await import('./timeline.ts')).timelineSpecs,
  services: async () => (await import('./services.ts')).serviceSpecs,
  cleanServices: async () => (await import('./clean-services.ts')).cleanServiceSpecs,
  fsview: async () => (await import('./fsview.ts')).fsviewSpecs,
  logfile: async () => (await import('./logfile.ts')).logfileSpecs,
  archived: async () => (await import('./archived.ts')).archivedSpecs,
  metadata: async () => (await import('./metadata.ts')).metadataSpecs,
  triage: async () => (await import('./triage.ts')).triageSpecs,
  browse: async () => (await import('./browse.ts')).browseSpecs,
  demo: async () => (await import('./demo.ts')).demoSpecs,
  meta: async () => (await import('./meta.ts')).metaSpecs,
  mcp: async () => (await import('./mcp.ts')).mcpSpecs,
} satisfies Record<string, () => Promise<CommandSpec[]>>;

export type Family = keyof typeof FAMILIES;
export const FAMILY_ORDER = Object.keys(FAMILIES) as Family[];

/** The first word of every command name or alias → the families (in help order) defining such commands. */
export const FIRST_WORDS: Record<string, Family[]> = {
  connect: ['table'],
  desc: ['table'],
  refresh: ['table'],
  fetch: ['table'],
  metadata: ['table', 'metadata'],
  commits: ['table', 'commits', 'archived'],
  commit: ['commits', 'remediation'],
  rollback: ['remediation'],
  savepoint: ['remediation'],
  marker: ['remediation'],
  repair: ['remediation'],
  table: ['remediation'],
  cleans: ['table', 'services', 'cleanServices'],
  clean: ['services', 'cleanServices'],
  savepoints: ['table', 'services'],
  compactions: ['compactions', 'archived'],
  compaction: ['compactions', 'compactionServices', 'remediation', 'archived'],
  clustering: ['clustering'],
  timeline: ['timeline'],
  show: ['services', 'fsview', 'logfile', 'archived', 'triage'],
  stats: ['fsview'],
  collisions: ['triage'],
  orphans: ['triage'],
  doctor: ['triage'],
  metrics: ['triage'],
  trigger: ['archival'],
  browse: ['browse'],
  demo: ['demo'],
  man: ['meta'],
  mcp: ['mcp'],
  completion: ['meta'],
};

export function loadFamily(f: Family): Promise<CommandSpec[]> {
  return FAMILIES[f]();
}

async function load(families: readonly Family[]): Promise<CommandSpec[]> {
  return (await Promise.all(families.map(loadFamily))).flat();
}

/** Every command, in help order (help, the man page, the shell). */
export function allCommands(): Promise<CommandSpec[]> {
  return load(FAMILY_ORDER);
}

/** The families a command line can name, by its first word; every family when it names none we know. */
export function commandsFor(argv: string[]): Promise<CommandSpec[]> {
  const first = argv[0];
  const families = first !== undefined && !first.startsWith('-') && Object.hasOwn(FIRST_WORDS, first) ? FIRST_WORDS[first]! : undefined;
  if (argv.length > 0 && argv.every((a) => a === '--version' || a === '-V')) return Promise.resolve([]);
  return families ? load(families) : allCommands();
}
