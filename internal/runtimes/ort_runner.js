// Runs an ONNX model in ONNX Runtime (CPU) for `modelbridge check`.
//   node ort_runner.js JOB.json
// JOB: {model, opt, samples: [{inputs: [file.pb in session input order], out: DIR}]}
// Each sample's outputs go to DIR/output_N.pb (TensorProto, in session
// output order, named). Prints {"inputs": [names], "outputs": [names]}.
const fs = require('fs');
const path = require('path');
const base = path.join(process.env.ORT_DIR, 'node_modules');
const ort = require(path.join(base, 'onnxruntime-node'));
const { onnx } = require(path.join(base, 'onnx-proto'));
const DT = { 1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32', 7: 'int64', 9: 'bool',
  10: 'float16', 11: 'float64', 12: 'uint32', 13: 'uint64' };
const CODE = Object.fromEntries(Object.entries(DT).map(([k, v]) => [v, +k]));
const ARR = { float32: Float32Array, uint8: Uint8Array, int8: Int8Array, uint16: Uint16Array, int16: Int16Array,
  int32: Int32Array, int64: BigInt64Array, bool: Uint8Array, float64: Float64Array, float16: Uint16Array,
  uint32: Uint32Array, uint64: BigUint64Array };

function readTensor(file) {
  const t = onnx.TensorProto.decode(fs.readFileSync(file));
  const type = DT[t.dataType];
  if (!type) throw new Error(`${file}: ONNX Runtime's Node binding takes no TensorProto data_type ${t.dataType}`);
  const dims = t.dims.map(Number);
  const raw = Buffer.from(t.rawData || []);
  const copy = new ArrayBuffer(raw.length);
  new Uint8Array(copy).set(raw);
  return new ort.Tensor(type, new ARR[type](copy, 0, dims.reduce((x, y) => x * y, 1)), dims);
}

function writeTensor(file, name, t) {
  const raw = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  fs.writeFileSync(file, onnx.TensorProto.encode({ name, dims: t.dims, dataType: CODE[t.type], rawData: raw }).finish());
}

(async () => {
  const job = JSON.parse(fs.readFileSync(process.argv[2]));
  // By path, so that ONNX Runtime finds external data beside the model.
  const sess = await ort.InferenceSession.create(job.model,
    { graphOptimizationLevel: job.opt || 'all', executionProviders: ['cpu'] });
  for (const s of job.samples) {
    if (s.inputs.length !== sess.inputNames.length) {
      throw new Error(`the session takes ${sess.inputNames.length} inputs (${sess.inputNames.join(', ')}), given ${s.inputs.length}`);
    }
    const feeds = {};
    sess.inputNames.forEach((name, i) => { feeds[name] = readTensor(s.inputs[i]); });
    const out = await sess.run(feeds);
    fs.mkdirSync(s.out, { recursive: true });
    sess.outputNames.forEach((name, i) => writeTensor(path.join(s.out, `output_${i}.pb`), name, out[name]));
  }
  console.log(JSON.stringify({ inputs: sess.inputNames, outputs: sess.outputNames }));
})().catch((e) => { console.error(String(e.message || e)); process.exit(1); });
