// `--format csv|tsv`: the converted cells (what the table shows), one record per line, '\n' endings.
//   CSV: RFC 4180 quoting — a field containing , " CR or LF is wrapped in quotes, quotes doubled.
//   TSV: one physical line per record, so \ TAB LF CR are escaped as \\ \t \n \r (the escaping
//        PostgreSQL COPY and IANA "linear TSV" use; backslash too, so the escaping can be undone).

export function renderDelimited(
  headers: string[],
  cells: string[][],
  sep: ',' | '\t',
  opts: { header: boolean },
): string {
  const field = sep === ',' ? csvField : tsvField;
  const lines: string[] = [];
  if (opts.header) lines.push(headers.map(field).join(sep));
  for (const row of cells) lines.push(row.map(field).join(sep));
  return lines.map((l) => `${l}\n`).join('');
}

function csvField(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const TSV_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function tsvField(s: string): string {
  return s.replace(/[\\\t\n\r]/g, (c) => TSV_ESCAPES[c]!);
}
