// Snappy compression throughput (issue 6): our src/parquet/snappy.ts against hyparquet-writer's
// snappyCompress (the snappyjs port compaction used) and, for reference, hysnappy's wasm build of the
// C++ compressor and the native `snappy` package (napi-rs) when installed, on page-like data. Prints the median MB/s of several runs and the compressed sizes,
// ours as a ratio of hyparquet-writer's. Never asserted (each output is only checked to round-trip).
// Usage: node bench/snappy.mjs  (env BENCH_RUNS=7, BENCH_MS=200 per timed run, BENCH_ONLY=<part of an input's name>)
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { snappyCompress as hwCompress } from 'hyparquet-writer/src/snappy.js';
import { snappyUncompress } from 'hyparquet/src/snappy.js';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, '.bench-out');
mkdirSync(out, { recursive: true });
const libFile = join(out, 'snappy-lib.mjs');
await build({ entryPoints: [join(root, 'src/parquet/snappy.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: libFile, logLevel: 'error' });
const { snappyCompress: ours } = await import(libFile);
let wasm;
try {
  wasm = (await import('hysnappy')).snappyCompressor();
} catch {
  wasm = undefined; // hysnappy is only a transitive dependency (of hyparquet-compressors)
}

// the native `snappy` package (napi-rs), when installed: measured for issue 17, not a dependency
let native;
try {
  const { compressSync } = await import('snappy');
  native = (b) => compressSync(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
} catch {
  native = undefined;
}

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const MS = Number(process.env.BENCH_MS ?? 200);
const enc = new TextEncoder();

function rng(seed) {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

const inputs = [];
{
  let s = '';
  for (let i = 0; i < 100_000; i++) s += `key-${String(i).padStart(8, '0')}`;
  inputs.push(['keys key-00001234 ×100k', enc.encode(s)]);
}
{
  const f = new Float64Array(100_000);
  for (let i = 0; i < f.length; i++) f[i] = i / 7;
  inputs.push(['float64 i/7 ×100k', new Uint8Array(f.buffer)]);
}
{
  // a PLAIN BYTE_ARRAY page of record keys: 4-byte little-endian length, then the bytes
  const b = new Uint8Array(100_000 * 16);
  const dv = new DataView(b.buffer);
  for (let i = 0; i < 100_000; i++) {
    dv.setUint32(i * 16, 12, true);
    b.set(enc.encode(`key-${String(i * 3).padStart(8, '0')}`), i * 16 + 4);
  }
  inputs.push(['PLAIN byte-array keys', b]);
}
{
  // a PLAIN INT64 page of event times in ms, a few per second
  const b = new BigInt64Array(100_000);
  for (let i = 0; i < b.length; i++) b[i] = 1_700_000_000_000n + BigInt(i * 250 + (i % 7));
  inputs.push(['int64 timestamps ×100k', new Uint8Array(b.buffer)]);
}
inputs.push(['one 23-byte string ×40k', enc.encode('status=COMPLETED;x=42;\n'.repeat(40_000))]);
{
  const r = rng(7);
  const b = new Uint8Array(1 << 20);
  for (let i = 0; i < b.length; i++) b[i] = (r() * 256) | 0;
  inputs.push(['random 1 MiB', b]);
}
for (const n of [0, 1, 5, 17]) inputs.push([`small ${n} B`, enc.encode('abcdefghijklmnopq'.slice(0, n))]);

function check(name, fn, input) {
  const c = fn(input);
  const back = new Uint8Array(input.length);
  snappyUncompress(c, back);
  if (!back.every((v, i) => v === input[i])) throw new Error(`${name} does not round-trip`);
  return c.length;
}

/** bytes/s of fn on input over about MS milliseconds */
function rate(fn, input) {
  // small inputs: count calls, scaled to a batch that can be timed
  const batch = Math.max(1, Math.floor(65536 / Math.max(1, input.length)));
  let calls = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < MS) {
    for (let i = 0; i < batch; i++) fn(input);
    calls += batch;
    t = performance.now();
  }
  return (calls * input.length) / ((t - t0) / 1000);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const mbs = (x) => (x / 1e6).toFixed(1).padStart(8);
const impls = [['ours', ours], ['hyparquet-writer', hwCompress]];
if (wasm) impls.push(['hysnappy wasm', wasm]);
if (native) impls.push(['snappy (napi-rs)', native]);

// warm up every implementation on every input
for (const [, input] of inputs) for (const [, fn] of impls) for (let i = 0; i < 20; i++) fn(input);

console.log(`median of ${RUNS} runs of ~${MS} ms each; MB/s of input; sizes in bytes`);
console.log(
  `${'input'.padEnd(26)}${'bytes'.padStart(9)}` +
    impls.map(([n]) => `${n.slice(0, 14).padStart(16)}`).join('') +
    `${'speed×'.padStart(8)}${'size ours'.padStart(11)}${'size hw'.padStart(10)}${'size wasm'.padStart(11)}${'ratio'.padStart(7)}`,
);
for (const [name, input] of inputs) {
  if (process.env.BENCH_ONLY && !name.includes(process.env.BENCH_ONLY)) continue;
  const sizes = impls.map(([n, fn]) => check(n, fn, input));
  const rates = impls.map(() => []);
  for (let r = 0; r < RUNS; r++) impls.forEach(([, fn], k) => rates[k].push(rate(fn, input)));
  const med = rates.map(median);
  console.log(
    `${name.padEnd(26)}${String(input.length).padStart(9)}` +
      med.map((m) => `${mbs(m)} MB/s`.padStart(16)).join('') +
      `${(med[1] ? med[0] / med[1] : 0).toFixed(2).padStart(8)}` +
      `${String(sizes[0]).padStart(11)}${String(sizes[1]).padStart(10)}${String(sizes[2] ?? '-').padStart(11)}` +
      `${(sizes[0] / sizes[1]).toFixed(3).padStart(7)}`,
  );
}
