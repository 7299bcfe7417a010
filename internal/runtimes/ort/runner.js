// modelbridge's one ONNX Runtime runner (CPU, Node binding). `check --runtime
// ort`, the optimizer's "ort" target and the tests all run models through
// it, by way of the Go package that embeds it (internal/runtimes/ort).
//
//   node runner.js JOB.json        (with $ORT_DIR holding node_modules)
//
// JOB {mode: "run", cases: [{model, inputs, inputDir, out, level, threads}]}
//   Each case opens a session on the model's path (so that external data is
//   found beside it) at graph optimization level `level` (default "all")
//   with `threads` intra-op threads (ONNX Runtime's default when 0). Its
//   inputs are the TensorProto files `inputs`, one per session input in
//   order, or else inputDir/input_N.pb for each session input N. Outputs go
//   to out/output_N.pb (TensorProto, named, session output order). One JSON
//   line per case: {"case": i, "inputs": [names], "outputs": [names]} or
//   {"case": i, "error": message}. Consecutive cases on the same model and
//   settings share one session.
// JOB {mode: "time", models, level, threads, runs}
//   Opens a session per model, feeds all the same random inputs (made from
//   the first model's declared inputs, dynamic dims 1), warms each up, then
//   takes `runs` samples of each, round-robin in alternating order so that
//   drift in the machine's load hits all alike. A sample repeats the model
//   enough times to last about 5 ms, so that timer resolution and
//   scheduling jitter stay small next to it. Prints {"times": [[ms per run]]}.
const fs = require('fs');
const path = require('path');
const base = path.join(process.env.ORT_DIR, 'node_modules');
const ort = require(path.join(base, 'onnxruntime-node'));
const { onnx } = require(path.join(base, 'onnx-proto'));

const DT = { 1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32', 7: 'int64', 8: 'string', 9: 'bool',
  10: 'float16', 11: 'float64', 12: 'uint32', 13: 'uint64' };
const CODE = Object.fromEntries(Object.entries(DT).map(([k, v]) => [v, +k]));
const ARR = { float32: Float32Array, uint8: Uint8Array, int8: Int8Array, uint16: Uint16Array, int16: Int16Array,
  int32: Int32Array, int64: BigInt64Array, bool: Uint8Array, float64: Float64Array, float16: Uint16Array,
  uint32: Uint32Array, uint64: BigUint64Array };

// readTensor decodes a TensorProto file: raw_data, or the typed fields a
// writer may use instead.
function readTensor(file) {
  const t = onnx.TensorProto.decode(fs.readFileSync(file));
  const type = DT[t.dataType];
  if (!type) throw new Error(`${file}: ONNX Runtime's Node binding takes no TensorProto data_type ${t.dataType}`);
  const dims = t.dims.map(Number);
  if (type === 'string') return new ort.Tensor('string', t.stringData.map((b) => Buffer.from(b).toString('utf8')), dims);
  const n = dims.reduce((x, y) => x * y, 1);
  const A = ARR[type];
  let data;
  if (t.rawData && t.rawData.length) {
    const raw = Buffer.from(t.rawData);
    const copy = new ArrayBuffer(raw.length);
    new Uint8Array(copy).set(raw);
    data = new A(copy, 0, n);
  } else if (type === 'float32') data = Float32Array.from(t.floatData);
  else if (type === 'float64') data = Float64Array.from(t.doubleData);
  else if (type === 'int64') data = BigInt64Array.from(t.int64Data.map((v) => BigInt(v.toString())));
  else if (type === 'uint64') data = BigUint64Array.from(t.uint64Data.map((v) => BigInt(v.toString())));
  else if (type === 'uint32') data = Uint32Array.from(t.uint64Data.map((v) => Number(v.toString())));
  else data = A.from(t.int32Data);
  if (data.length !== n) throw new Error(`${file}: ${data.length} values for dims [${dims}]`);
  return new ort.Tensor(type, data, dims);
}

function writeTensor(file, name, t) {
  let msg;
  if (t.type === 'string') {
    msg = { name, dims: t.dims, dataType: 8, stringData: t.data.map((v) => Buffer.from(v, 'utf8')) };
  } else {
    msg = { name, dims: t.dims, dataType: CODE[t.type], rawData: Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength) };
  }
  fs.writeFileSync(file, onnx.TensorProto.encode(msg).finish());
}

function sessionOptions(level, threads) {
  const opts = { graphOptimizationLevel: level || 'all', executionProviders: ['cpu'] };
  if (threads > 0) opts.intraOpNumThreads = threads;
  return opts;
}

let last = { key: null, sess: null };

async function session(c) {
  const key = JSON.stringify([c.model, c.level || 'all', c.threads || 0]);
  if (last.key !== key) {
    const old = last.sess;
    last = { key: null, sess: null };
    if (old && old.release) await old.release();
    last = { key, sess: await ort.InferenceSession.create(c.model, sessionOptions(c.level, c.threads)) };
  }
  return last.sess;
}

async function runCase(c) {
  const sess = await session(c);
  let files = c.inputs || [];
  if (c.inputDir) {
    files = sess.inputNames.map((_, i) => path.join(c.inputDir, `input_${i}.pb`));
  } else if (files.length !== sess.inputNames.length) {
    throw new Error(`the session takes ${sess.inputNames.length} inputs (${sess.inputNames.join(', ')}), given ${files.length}`);
  }
  const feeds = {};
  sess.inputNames.forEach((name, i) => { feeds[name] = readTensor(files[i]); });
  const out = await sess.run(feeds);
  fs.mkdirSync(c.out, { recursive: true });
  sess.outputNames.forEach((name, i) => writeTensor(path.join(c.out, `output_${i}.pb`), name, out[name]));
  return { inputs: sess.inputNames, outputs: sess.outputNames };
}

async function runCases(job) {
  for (let i = 0; i < job.cases.length; i++) {
    let line;
    try {
      line = { case: i, ...(await runCase(job.cases[i])) };
    } catch (e) {
      line = { case: i, error: String(e.message || e) };
    }
    console.log(JSON.stringify(line));
  }
}

// randomFeeds makes inputs from a model's declared input types and shapes
// (a fixed linear congruential sequence, floats uniform in [-1, 1)).
function randomFeeds(file) {
  const TYPES = { 1: ['float32', Float32Array], 6: ['int32', Int32Array], 7: ['int64', BigInt64Array], 9: ['bool', Uint8Array],
    11: ['float64', Float64Array] };
  const m = onnx.ModelProto.decode(fs.readFileSync(file));
  const inits = new Set(m.graph.initializer.map((t) => t.name));
  let s = 12345;
  const r = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
  const feeds = {};
  for (const vi of m.graph.input) {
    if (inits.has(vi.name)) continue;
    const tt = vi.type.tensorType;
    const dims = tt.shape.dim.map((d) => (d.dimValue && Number(d.dimValue) > 0 ? Number(d.dimValue) : 1));
    const n = dims.reduce((x, y) => x * y, 1);
    const ty = TYPES[tt.elemType];
    if (!ty) throw new Error(`cannot make a random input ${vi.name} of ONNX type ${tt.elemType}`);
    const data = new ty[1](n);
    if (ty[0] === 'float32' || ty[0] === 'float64') for (let i = 0; i < n; i++) data[i] = r() * 2 - 1;
    feeds[vi.name] = new ort.Tensor(ty[0], data, dims);
  }
  return feeds;
}

async function time(job) {
  const opts = sessionOptions(job.level, job.threads);
  opts.interOpNumThreads = 1;
  const sess = [];
  for (const m of job.models) sess.push(await ort.InferenceSession.create(m, opts));
  const feeds = randomFeeds(job.models[0]);
  const reps = [];
  for (const s of sess) {
    for (let i = 0; i < 3; i++) await s.run(feeds);
    const t0 = process.hrtime.bigint();
    await s.run(feeds);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    reps.push(Math.max(1, Math.min(200, Math.ceil(5 / Math.max(ms, 1e-3)))));
  }
  const rep = Math.max(...reps);
  const times = sess.map(() => []);
  for (let r = 0; r < job.runs; r++) {
    const order = sess.map((_, k) => k);
    if (r % 2) order.reverse();
    for (const k of order) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < rep; i++) await sess[k].run(feeds);
      times[k].push(Number(process.hrtime.bigint() - t0) / 1e6 / rep);
    }
  }
  console.log(JSON.stringify({ times }));
}

(async () => {
  const job = JSON.parse(fs.readFileSync(process.argv[2]));
  if (job.mode === 'run') await runCases(job);
  else if (job.mode === 'time') await time(job);
  else throw new Error(`unknown mode ${JSON.stringify(job.mode)}`);
})().catch((e) => { console.error(String(e.message || e)); process.exit(1); });
