// man/tblcli.1, generated from the command registry (a test keeps the checked-in page in sync).
import type { CommandSpec } from './spec.ts';
import { GLOBAL_OPTIONS, TABLE_OPTIONS } from './spec.ts';

function esc(s: string): string {
  return s.replace(/\\/g, '\\e').replace(/-/g, '\\-').replace(/^\./gm, '\\&.').replace(/'/g, "\\(aq");
}

const EXIT_CODES: [string, string][] = [
  ['0', 'Success, including empty results and "nothing to do". Corrupt log blocks (show logfile), metadata-table differences (metadata validate-files) and a hoodie.properties checksum mismatch are reported as warnings on stderr and still exit 0.'],
  ['1', 'Runtime error: unreadable table, corrupt instant file, storage failure, a command that needs another table type (compactions on a COPY_ON_WRITE table). One line on stderr names the path or instant; --debug adds the cause chain.'],
  ['2', 'Usage error: unknown command or option, missing required option, bad --sortBy column, bad --json field.'],
  ['3', 'Findings at warning level or above (doctor, collisions, orphans with --exit-code).'],
  ['4', 'Lock held: another table service holds the table lock (table services without --wait), or another process runs the pending compaction or clean.'],
  ['130', 'Interrupted (SIGINT).'],
];

const ENVIRONMENT: [string, string][] = [
  ['TBLCLI_PATH', 'Table path used when --path is not given (before the connected table).'],
  ['TBLCLI_STATE_DIR', 'Where connect remembers the table and the shell keeps history (default $XDG_STATE_HOME/tblcli, else ~/.local/state/tblcli).'],
  ['TBLCLI_WEBHDFS', 'NameNode HTTP address(es) for hdfs:// paths, like --namenode-http.'],
  ['HADOOP_USER_NAME', 'WebHDFS user.name when --user is not given.'],
  ['HADOOP_TOKEN', 'WebHDFS delegation token when --delegation-token is not given.'],
  ['NODE_EXTRA_CA_CERTS', 'Extra CA certificates for swebhdfs://.'],
  ['NO_COLOR, FORCE_COLOR', 'Disable or force colour on a terminal. Piped output never has colour.'],
  ['TBLCLI_FORCE_TTY', 'Treat stdout as a terminal.'],
  ['TBLCLI_DEBUG', 'Set to 1 to behave as if --debug was given.'],
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
      'Listings print hudi-cli\'s box table (FlipTable), identical on a terminal and in a pipe; on a colour terminal the header is bold, piped output never has colour. --format csv|tsv prints delimited rows with a header line. --json prints raw values (bytes as numbers, times as stored) keyed by the JSON field names listed per command; --json=a,b keeps only those fields. Errors, warnings and titles go to stderr; stdout carries data only.',
    ),
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
    esc('tblcli timeline show incomplete --show-rollback-info'),
    esc('tblcli commits show --json | jq ".[0]"'),
    esc('tblcli cleans run --commits-retained 24 --dry-run'),
    esc('0 * * * * tblcli cleans run --path hdfs://ns/t --namenode-http nn:9870 --commits-retained 24 --json >> /var/log/clean.jsonl'),
    '.fi',
  );
  return `${out.join('\n')}\n`;
}
