// Runs many ONNX models in ONNX Runtime (CPU) in one process, for tests
// that sweep a fixture suite.
//   node ort_batch.js JOB.json
// JOB: {cases: [{model, inputs: [file.pb in session input order], out: DIR}]}
// Each case writes DIR/output_N.pb (session output order) and DIR/done,
// or DIR/error.txt when ONNX Runtime refuses the model or the run.
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
  for (const c of job.cases) {
    fs.mkdirSync(c.out, { recursive: true });
    if (fs.existsSync(path.join(c.out, 'done')) || fs.existsSync(path.join(c.out, 'error.txt'))) continue;
    try {
      const sess = await ort.InferenceSession.create(c.model, { graphOptimizationLevel: 'all', executionProviders: ['cpu'] });
      if (c.inputs.length !== sess.inputNames.length) {
        throw new Error(`the session takes ${sess.inputNames.length} inputs (${sess.inputNames.join(', ')}), given ${c.inputs.length}`);
      }
      const feeds = {};
      sess.inputNames.forEach((name, i) => { feeds[name] = readTensor(c.inputs[i]); });
      const out = await sess.run(feeds);
      sess.outputNames.forEach((name, i) => writeTensor(path.join(c.out, `output_${i}.pb`), name, out[name]));
      fs.writeFileSync(path.join(c.out, 'done'), '');
    } catch (e) {
      fs.writeFileSync(path.join(c.out, 'error.txt'), String(e.message || e).split('\n')[0]);
    }
  }
})().catch((e) => { console.error(String(e.message || e)); process.exit(1); });
