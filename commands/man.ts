// man/tblcli.1, generated from the command registry (a test keeps the checked-in page in sync).
import type { CommandSpec } from './spec.ts';
import { GLOBAL_OPTIONS, TABLE_OPTIONS } from './spec.ts';

function esc(s: string): string {
  return s.replace(/\\/g, '\\e').replace(/-/g, '\\-').replace(/^\./gm, '\\&.').replace(/'/g, "\\(aq");
}

const EXIT_CODES: [string, string][] = [
  ['0', 'Success, including empty results and "nothing to do". Corrupt log blocks (show logfile), metadata-table differences (metadata validate-files) and a hoodie.properties checksum mismatch are reported as warnings on stderr and still exit 0.'],
  ['1', 'Runtime error: unreadable table, corrupt instant file, storage failure, a command that needs another table type (compactions on a COPY_ON_WRITE table), a refused remediation (a savepointed commit, commits after it, a live heartbeat; nothing is written then). One line on stderr names the path or instant; --debug adds the cause chain. With --engine spark|flink: the planned instant is not completed on the timeline after the engine exited, whatever its exit code (its last error lines and the instant\'s state are printed).'],
  ['2', 'Usage error: unknown command or option, missing required option, bad --sortBy column, bad --json field.'],
  ['3', 'Findings at warning level or above (doctor, collisions, orphans with --exit-code); a dry run of a remediation command (commit rollback --dry-run, rollback failed without --yes, repair addpartitionmeta, …) that would change something.'],
  ['4', 'Lock held: another process holds the table lock, or another process (tblcli, Spark, Flink) runs the instant: its heartbeat is live (table services and remediation commands without --wait).'],
  ['130', 'Interrupted (SIGINT; with --engine also SIGTERM, after the signal was forwarded to the engine and it exited).'],
];

const ENVIRONMENT: [string, string][] = [
  ['TBLCLI_PATH', 'Table path used when --path is not given (before the connected table).'],
  ['TBLCLI_STATE_DIR', 'Where connect remembers the table and the shell keeps history (default $XDG_STATE_HOME/tblcli, else ~/.local/state/tblcli).'],
  ['TBLCLI_WEBHDFS', 'NameNode HTTP address(es) for hdfs:// paths, like --namenode-http.'],
  ['HADOOP_USER_NAME', 'WebHDFS user.name when --user is not given.'],
  ['HADOOP_TOKEN', 'WebHDFS delegation token when --delegation-token is not given.'],
  ['NODE_EXTRA_CA_CERTS', 'Extra CA certificates for swebhdfs://.'],
  ['NO_COLOR, FORCE_COLOR', 'Disable or force colour on a terminal. Piped output never has colour.'],
  ['TBLCLI_FORCE_TTY', 'Treat stdout as a terminal; a number also sets the width.'],
  ['TBLCLI_PAGER, PAGER', 'Pager for output taller or wider than the terminal (TBLCLI_PAGER first; empty or cat: none). Default: less -FRSX, with --header keeping the table header and time column in view where less supports it.'],
  ['COLUMNS, LINES', 'Terminal size when the terminal does not report one.'],
  ['TBLCLI_DEBUG', 'Set to 1 to behave as if --debug was given.'],
  ['TBLCLI_ENGINE', 'Engine of compaction run|scheduleAndExecute, cleans run, clean run|scheduleAndExecute when --engine is not given: local, spark or flink (the clean: local or spark).'],
  ['TBLCLI_ENGINE_CONF', 'Engine settings file (YAML or .properties) when --engine-conf is not given.'],
  ['TBLCLI_ENGINE_<KEY>', 'Any engine setting by its flag name, upper case, - as _ (TBLCLI_ENGINE_MASTER=yarn, TBLCLI_ENGINE_SPARK_SUBMIT=...). Flags win over the environment, the environment over the file.'],
  ['SPARK_HOME, FLINK_HOME', 'Where spark-submit and flink are (bin/), when --spark-submit / --flink are not given.'],
  ['HUDI_UTILITIES_BUNDLE, HUDI_FLINK_BUNDLE', 'The Hudi bundle jar for --engine spark / flink when --bundle is not given.'],
  ['SPARK_CONF_DIR', 'Where spark-defaults.conf is read from when secret --spark-conf values move into a private --properties-file.'],
  ['HADOOP_HOME, YARN_HOME', 'bin/yarn kills the YARN application of a stopped engine run (else yarn on PATH, or --yarn).'],
  ['TBLCLI_NOW', 'An ISO date-time used as the current time (ages, pending bars): reproducible output for screenshots and tests.'],
];

export async function generateMan(commands: CommandSpec[], version: string): Promise<string> {
  const out: string[] = [];
  out.push(`.TH TBLCLI 1 "" "tblcli ${version}" "User Commands"`);
  out.push('.SH NAME', 'tblcli \\- fast, JVM\\-free administration for Apache Hudi tables (hudi\\-cli compatible)');
  out.push('.SH SYNOPSIS', '.B tblcli', '.I command', '[\\fIoptions\\fR]', '.br', '.B tblcli', '(no arguments on a terminal: interactive shell)');
  out.push(
    '.SH DESCRIPTION',
    esc(
      'tblcli reads and administers Apache Hudi tables (table versions 3-9, timeline layouts 1 and 2) on local or NFS paths and on HDFS over WebHDFS or HttpFS, without a JVM. Commands use the hudi-cli spellings and column headers. Connect once with "tblcli connect --path P"; later commands use that table unless --path or TBLCLI_PATH says otherwise.',
    ),
  );
  out.push('.SH COMMANDS');
  for (const c of commands) {
    out.push('.TP', `.B ${esc(c.name)}${c.args ? ` ${esc(c.args.join(' '))}` : ''}`, esc(c.summary));
    if (c.aliases?.length) out.push('.br', `Aliases: ${esc(c.aliases.join(', '))}.`);
    const opts = [...(c.options ?? []), ...(c.table ? TABLE_OPTIONS(c.table.limit) : [])];
    for (const o of opts) {
      const dflt = o.default !== undefined && o.default !== '' ? ` (default: ${esc(String(o.default))})` : '';
      out.push('.br', `\\fB${esc(o.flags)}\\fR ${esc(o.description)}${dflt}`);
    }
    if (c.jsonFields) out.push('.br', `JSON fields: ${esc((await c.jsonFields()).join(', '))}.`);
  }
  out.push('.SH GLOBAL OPTIONS', 'Every command also takes:');
  for (const o of GLOBAL_OPTIONS) out.push('.TP', `.B ${esc(o.flags)}`, esc(o.description));
  out.push(
    '.SH OUTPUT',
    esc(
      'Listings print hudi-cli\'s box table (FlipTable), identical on a terminal and in a pipe; on a colour terminal the header is bold, piped output never has colour. On a terminal, output taller or wider than the screen goes through a pager (see TBLCLI_PAGER; --no-pager to switch it off); never with --json or --format. doctor, orphans and collisions are tblcli\'s own: on a terminal doctor prints a checklist and the listings a box fitted to the width (one record per row when the columns cannot fit), empty cells as -; in a pipe plain aligned columns, one line per row; --json and --format as for every command. --format csv|tsv prints delimited rows with a header line. --json prints raw values (bytes as numbers, times as stored) keyed by the JSON field names listed per command; --json=a,b keeps only those fields. Errors, warnings and titles go to stderr; stdout carries data only.',
    ),
  );
  out.push(
    '.SH ENGINES',
    esc(
      "compaction run and compaction scheduleAndExecute take --engine local|spark|flink. local (the default) compacts in tblcli. spark and flink hand exactly the planned instant to Hudi's own utilities: spark-submit --class org.apache.hudi.utilities.HoodieCompactor <bundle> --base-path B --table-name N --instant-time T --mode execute, or flink run -c org.apache.hudi.sink.compact.HoodieFlinkCompactor <bundle> --path B --plan-select-strategy instants --target-instants T, with --hoodie-conf settings for Hudi's FileSystemBasedLockProvider on <base>/.hoodie/.aux/lock so the engine and tblcli share the table lock. Before launching, under the lock, tblcli checks the plan's files, refuses an instant whose heartbeat is live (exit 4), rolls a dead attempt back, and holds the instant's heartbeat until the engine exits (Hudi's HoodieCompactor then keeps its own; the Flink compactor writes none). The engine's output goes to stderr (or --engine-log), SIGINT and SIGTERM are forwarded, --max-duration stops it, and a YARN application, Kubernetes submission or Flink job is cancelled on the cluster too. The exit status is the timeline's verdict: 0 only when the instant completed. Secret settings (keys naming a password, secret, token, access key, credential...) never go on the command line: Spark ones go to a private --properties-file (spark-defaults.conf carried over), Hudi ones to a private --props file; they are masked in everything tblcli prints, --dry-run and --verbose included. Settings come from flags, then TBLCLI_ENGINE_<KEY>, then --engine-conf (YAML: key: value, one level of maps and lists; or .properties with dotted map keys).",
    ),
    '.PP',
    esc(
      "cleans run, clean run and clean scheduleAndExecute take --engine local|spark. With spark tblcli plans the clean itself (its planner, <t>.clean.requested), checks every path of the plan, holds the clean's heartbeat while the engine starts and launches spark-submit --class org.apache.hudi.utilities.HoodieCleaner <bundle> --target-base-path B with the lock settings and hoodie.clean.multiple.enabled=false / hoodie.clean.allow.multiple=false, so that Hudi schedules no clean of its own and executes the pending ones (HoodieCleaner names no instant and executes every pending clean). Exit 0 only when the clean is completed on the timeline. A clean is never rolled back: a failed run leaves it pending for the next run. Hudi has no Flink cleaner; HoodieCleaner takes no --parallelism or --retry.",
    ),
    '.SH INTERACTIVE USE',
    esc(
      'tblcli with no arguments on a terminal is hudi-cli\'s shell (prompt hudi-> or hudi:<table>->); Tab completes command words, the options of the command typed so far, the connected table\'s instants after --commit, --instant and the other instant options, and its partitions after --partitionPath and --partition (read once per table for the session).',
    ),
    '.PP',
    esc(
      'browse keys: up/down or j/k move, PgUp/PgDn, g/G first/last; Enter opens the instant (a commit\'s partitions, files and write stats; a compaction or clustering plan; a clean\'s deleted files; a rollback\'s targets), Esc goes back; / searches an instant, n finds the next; s cycles the state filter (all, pending, completed), a the action filter; t toggles the time view; d shows doctor\'s findings and marks the instants they name with !; r re-reads the timeline; ? help; q quits. The bottom line shows the tblcli command for what is selected; browse never changes the table.',
    ),
    '.PP',
    esc('Shell completion: eval "$(tblcli completion bash)" in ~/.bashrc (or save it in ~/.local/share/bash-completion/completions/tblcli); tblcli completion zsh > "${fpath[1]}/_tblcli"; tblcli completion fish > ~/.config/fish/completions/tblcli.fish. The scripts ask tblcli itself for the candidates; a table is opened only for instant and partition values, and those are cached for a minute in the state directory.'),
    '.SH METADATA TABLE AND OTHER WRITERS',
    esc(
      'Writes keep the metadata table (MDT) in step in the same transaction (--metadata-table update, the default): one MDT deltacommit with the write\'s instant time, completed before the data instant; when a Hudi writer would compact the MDT (hoodie.metadata.compact.max.delta.commits deltacommits, default 10, read from hoodie.properties when set there), tblcli compacts it right after its write under the same lock, and finishes a pending MDT compaction a crash left at the next write. trigger archival archives the MDT timeline after the data table\'s, as Hudi\'s writer does (keep min+1..max+1, its cleaner\'s 20 retained commits, its compaction trigger, nothing the data timeline still has). MDT clean is left to Hudi writers.',
    ),
    '.PP',
    esc('Flink/Spark writers running next to tblcli must use the same lock, so that their MDT appends and tblcli\'s never interleave:'),
    '.nf',
    esc('hoodie.write.concurrency.mode=OPTIMISTIC_CONCURRENCY_CONTROL'),
    esc('hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider'),
    esc('hoodie.write.lock.filesystem.path=<base path>/.hoodie/.aux'),
    esc('hoodie.write.lock.filesystem.expire=1'),
    esc('hoodie.cleaner.policy.failed.writes=LAZY'),
    '.fi',
    '.PP',
    esc('The lock file is <base path>/.hoodie/.aux/lock (what Flink and Hudi\'s offline utilities configure by default); the expiry, in minutes, must agree with --lock-expire. It needs atomic create (HDFS, local or NFS paths). A writer with hoodie.metadata.enable=false deletes the MDT: run all writers with the same setting.'),
  );
  out.push('.SH EXIT STATUS');
  for (const [code, text] of EXIT_CODES) out.push('.TP', `.B ${code}`, esc(text));
  out.push('.SH ENVIRONMENT');
  for (const [name, text] of ENVIRONMENT) out.push('.TP', `.B ${esc(name)}`, esc(text));
  out.push(
    '.SH EXAMPLES',
    '.nf',
    esc('tblcli demo'),
    esc('tblcli connect --path hdfs://nn:8020/warehouse/orders --namenode-http nn:9870'),
    esc('tblcli commits show --limit 10'),
    esc('tblcli compactions show all'),
    esc('tblcli clustering scheduleAndExecute --sort-columns city,ts --layout z-order --max-num-groups 10'),
    esc('tblcli timeline show incomplete --show-rollback-info'),
    esc('tblcli trigger archival --dry-run --limit 20'),
    esc('tblcli commits show --json | jq ".[0]"'),
    esc('tblcli cleans run --commits-retained 24 --dry-run'),
    esc('0 * * * * tblcli cleans run --path hdfs://ns/t --namenode-http nn:9870 --commits-retained 24 --json >> /var/log/clean.jsonl'),
    esc('tblcli compaction scheduleAndExecute --engine spark --engine-conf /etc/tblcli/spark.yaml --max-duration 50m --dry-run'),
    '.fi',
  );
  return `${out.join('\n')}\n`;
}
