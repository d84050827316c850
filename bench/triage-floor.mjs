// The floor for the triage benchmark (bench/triage.mjs): read the table's metadata once and nothing
// else. Lists every directory under the base path outside .hoodie (readdir, then stat each entry: the
// sizes and times a HDFS listing returns) and reads and parses every completed instant file of the
// active timeline (JSON.parse, or avsc's block decoder for Avro), one file at a time. Default:
// synchronously (readdirSync/statSync/readFileSync, the strict floor: on this machine a stat through
// the thread pool costs several times a synchronous one); `--async`: fs.promises with 16 directories in
// flight while the timeline is parsed, the common Node idiom. Prints counts so no work can be skipped.
// Usage: node bench/triage-floor.mjs <table> [--async]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import avro from 'avsc';

const [base, mode] = process.argv.slice(2);
const meta = join(base, '.hoodie');

function listSync() {
  const queue = [base];
  let files = 0;
  let bytes = 0;
  while (queue.length > 0) {
    const d = queue.pop();
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (p !== meta) queue.push(p);
        continue;
      }
      bytes += statSync(p).size;
      files++;
    }
  }
  return { files, listedBytes: bytes };
}

async function listAsync() {
  const queue = [base];
  let files = 0;
  let bytes = 0;
  let running = 0;
  await new Promise((resolve, reject) => {
    const pump = () => {
      if (queue.length === 0 && running === 0) return resolve();
      while (queue.length > 0 && running < 16) {
        const d = queue.pop();
        running++;
        readdir(d, { withFileTypes: true })
          .then((entries) =>
            Promise.all(
              entries.map(async (e) => {
                const p = join(d, e.name);
                if (e.isDirectory()) {
                  if (p !== meta) queue.push(p);
                  return;
                }
                bytes += (await stat(p)).size;
                files++;
              }),
            ),
          )
          .then(() => {
            running--;
            pump();
          }, reject);
      }
    };
    pump();
  });
  return { files, listedBytes: bytes };
}

function avroRecords(buf) {
  return new Promise((resolve, reject) => {
    let n = 0;
    const dec = new avro.streams.BlockDecoder({ parseHook: (schema) => avro.Type.forSchema(schema, { wrapUnions: false }) });
    dec.on('data', (r) => (n += Object.values(r.partitionToWriteStats ?? {}).reduce((k, l) => k + l.length, 0))).on('end', () => resolve(n)).on('error', reject);
    dec.end(buf);
  });
}

async function parseTimeline(yieldBetween) {
  const v2 = readdirSync(meta).includes('timeline');
  const dir = v2 ? join(meta, 'timeline') : meta;
  // completed instants: <t>.<action> (layout 1) or <t>_<completion>.<action> (layout 2)
  const names = readdirSync(dir).filter((n) => /^\d+(_\d+)?\.[a-z]+$/.test(n));
  let stats = 0;
  let bytes = 0;
  for (const n of names) {
    const buf = readFileSync(join(dir, n));
    bytes += buf.length;
    if (buf.length === 0) continue;
    if (buf[0] === 0x4f && buf[1] === 0x62 && buf[2] === 0x6a && buf[3] === 1) stats += await avroRecords(buf);
    else {
      const m = JSON.parse(buf.toString('utf8'));
      for (const list of Object.values(m.partitionToWriteStats ?? {})) stats += list.length;
    }
    // let the listing's callbacks run between files
    if (yieldBetween) await new Promise((r) => setImmediate(r));
  }
  return { instants: names.length, metadataBytes: bytes, stats };
}

const [listing, timeline] = mode === '--async' ? await Promise.all([listAsync(), parseTimeline(true)]) : [listSync(), await parseTimeline(false)];
process.stdout.write(`${JSON.stringify({ ...listing, ...timeline, maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`);
