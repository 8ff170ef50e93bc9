// wgrt in a web page: the JavaScript API over the WebAssembly engine
// (wgrt_engine.js + .wasm, built by scripts/build_web.sh). The engine, its
// kernels and its importers are the native ones; this file moves bytes and
// strings across and turns the engine's errors into WgrtError.
//
//   import * as wgrt from './wgrt.mjs';
//   const device = await wgrt.init();                 // {adapter, f16, ...}
//   const model = await wgrt.loadModel(fileOrUrlOrBytes, {onProgress});
//   for await (const step of model.generate('Hello', {maxTokens: 32}))
//     out.textContent += step.text;
//   const prompt = await model.chatPrompt([{role: 'user', content: 'Hi'}]);
//   const program = await wgrt.loadProgram(pte, ptd);  // ExecuTorch .pte
//   const outputs = await program.method('forward').execute([npyBytes]);
import createWgrtEngine from './wgrt_engine.js';

export class WgrtError extends Error {
  constructor(message) {
    super(message);
    this.name = 'WgrtError';
  }
}

let engine = null;       // the module, once created
let initialized = null;  // init()'s promise
let queue = Promise.resolve();
let nextFile = 1;

// The module can be suspended in one call at a time (Asyncify), so every call
// into it waits for the one before.
function serial(work) {
  const result = queue.then(work);
  queue = result.catch(() => {});
  return result;
}

async function call(name, returnType, argTypes, args) {
  const ret = await engine.ccall(name, 'number', argTypes, args, {async: true});
  if (returnType === 'string') {
    if (ret === 0) throw new WgrtError(engine.UTF8ToString(engine.ccall('wgrt_web_last_error', 'number', [], [])));
    return engine.UTF8ToString(ret);
  }
  if (ret === 0 || ret === -1) {
    throw new WgrtError(engine.UTF8ToString(engine.ccall('wgrt_web_last_error', 'number', [], [])));
  }
  return ret;
}

// Bytes from an ArrayBuffer, a typed array, a Blob/File or a same-origin URL
// (.pte, .ptd, .npy: files the importers read whole).
async function readBytes(source, onProgress) {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  return new Uint8Array(await (await readBlob(source, onProgress)).arrayBuffer());
}

// A Blob of the source. A model stays one, read in ranges by the engine
// (page_file.h), so it never lives in wasm memory whole; a download is
// kept as a Blob too (the browser may hold a large one on disk).
async function readBlob(source, onProgress) {
  if (typeof Blob !== 'undefined' && source instanceof Blob) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return new Blob([source]);
  if (typeof source !== 'string' && !(source instanceof URL)) {
    throw new WgrtError('expected a URL, a File, an ArrayBuffer or a Uint8Array');
  }
  const response = await fetch(source);
  if (!response.ok) throw new WgrtError(`${source}: HTTP ${response.status} ${response.statusText}`);
  const total = Number(response.headers.get('Content-Length')) || 0;
  if (!response.body) return await response.blob();
  const parts = [];
  let done = 0;
  for (const reader = response.body.getReader();;) {
    const {value, done: end} = await reader.read();
    if (end) break;
    parts.push(value);
    done += value.length;
    onProgress?.(done, total || done, 'downloading');
  }
  if (total && done !== total) throw new WgrtError(`${source}: ${done} of ${total} bytes arrived`);
  return new Blob(parts);
}

// Model files the engine reads (Module.wgrtSources, file_library.js), by number.
let nextSource = 1;
function addSource(blob) {
  engine.wgrtSources ??= new Map();
  const id = nextSource++;
  engine.wgrtSources.set(id, blob);
  return id;
}

// The bytes of wasm memory the engine has reserved: it only grows, so this
// is the peak so far.
export function memoryBytes() {
  return engine ? engine.HEAPU8.buffer.byteLength : 0;
}

// Writes bytes into the module's file system for the engine's importers.
function writeFile(bytes, suffix) {
  const path = `/wgrt_${nextFile++}${suffix}`;
  engine.FS.writeFile(path, bytes);
  return path;
}

function removeFile(path) {
  try {
    engine.FS.unlink(path);
  } catch (e) {
    // already gone
  }
}

// Creates the engine and its WebGPU device. `limits`: 'adapter' (the
// adapter's own limits, the default) or 'default' (WebGPU's defaults).
// Returns {adapter, limits_mode, f16, subgroups, max_storage_buffer_binding_size}.
export function init({limits = 'adapter'} = {}) {
  if (initialized) return initialized;
  initialized = serial(async () => {
    if (typeof navigator === 'undefined' || !navigator.gpu) {
      throw new WgrtError('this browser has no WebGPU (navigator.gpu is missing)');
    }
    engine = await createWgrtEngine({print: console.log, printErr: console.warn});
    await call('wgrt_web_init', 'number', ['string'], [limits]);
    return JSON.parse(await call('wgrt_web_device_info', 'string', [], []));
  });
  initialized.catch(() => { initialized = null; });
  return initialized;
}

const generationOptionNames = {
  maxTokens: 'max_tokens', temperature: 'temperature', topK: 'top_k', topP: 'top_p', minP: 'min_p',
  repeatPenalty: 'repeat_penalty', seed: 'seed', ignoreEos: 'ignore_eos', stop: 'stop',
  gpuSampling: 'gpu_sampling', inFlight: 'in_flight',
};

function generationOptions(options) {
  const out = {};
  for (const [key, value] of Object.entries(options)) {
    if (key === 'signal') continue;
    const name = generationOptionNames[key];
    if (!name) throw new WgrtError(`unknown generation option '${key}'`);
    out[name] = value;
  }
  return JSON.stringify(out);
}

// A language model (GGUF) on the device.
export class Model {
  constructor(handle, info) {
    this.handle = handle;
    this.info = info;  // {description, context, vocab, weight_bytes}
  }

  // The prompt for a chat under the model's own template.
  chatPrompt(messages) {
    return serial(() => call('wgrt_web_llm_chat_prompt', 'string', ['number', 'string'],
                             [this.handle, JSON.stringify(messages)]));
  }

  // Yields {token, text} per generated token; the last value returned (not
  // yielded) is the statistics. options: maxTokens, temperature (0: greedy),
  // topK, topP, minP, repeatPenalty, seed, ignoreEos, stop, signal (an
  // AbortSignal that stops generation at the next token).
  async *generate(prompt, options = {}) {
    const json = generationOptions(options);
    const handle = await serial(() => call('wgrt_web_generation_start', 'number', ['number', 'string', 'string'],
                                           [this.handle, prompt, json]));
    try {
      for (;;) {
        if (options.signal?.aborted) {
          await serial(() => call('wgrt_web_generation_stop', 'number', ['number'], [handle]));
        }
        const step = JSON.parse(await serial(() => call('wgrt_web_generation_next', 'string', ['number'], [handle])));
        if (step.done) return step.stats;
        yield step;
      }
    } finally {
      await serial(() => engine.ccall('wgrt_web_generation_free', 'number', ['number'], [handle]));
    }
  }

  // generate() on a chat's prompt.
  async *chat(messages, options = {}) {
    return yield* this.generate(await this.chatPrompt(messages), options);
  }

  // One forward pass of `tokens` (ids) with each dispatch timed (it extends
  // the KV cache as a prompt would): {wall_ms, dispatches: [{label, ms}], host}.
  async profile(tokens) {
    return JSON.parse(await serial(() => call('wgrt_web_llm_profile', 'string', ['number', 'string'],
                                              [this.handle, JSON.stringify(tokens)])));
  }

  free() {
    return serial(() => engine.ccall('wgrt_web_llm_free', 'number', ['number'], [this.handle]));
  }
}

// Loads a GGUF model from a URL, a File/Blob or bytes. options: context
// (KV cache length), kvF16, onProgress (done, total, stage) for
// downloading, preparing and uploading weights. The engine reads the file
// in ranges while it uploads (16 MiB at a time), never whole.
export async function loadModel(source, options = {}) {
  await init();
  const blob = await readBlob(source, options.onProgress);
  const name = typeof source === 'string' ? source : source instanceof URL ? source.href : (source.name ?? 'model.gguf');
  return serial(async () => {
    const id = addSource(blob);
    engine.onProgress = options.onProgress ?? null;
    try {
      const json = JSON.stringify({context: options.context ?? 2048, kv_f16: options.kvF16 ?? false,
                                   ...(options.tuning ?? {})});
      const handle = await call('wgrt_web_llm_load', 'number', ['number', 'number', 'string', 'string'],
                                [id, blob.size, name, json]);
      return new Model(handle, JSON.parse(await call('wgrt_web_llm_info', 'string', ['number'], [handle])));
    } finally {
      engine.onProgress = null;
      // Every weight is on the GPU now (or the load failed): nothing reads it again.
      engine.wgrtSources.delete(id);
    }
  });
}

// One method of a loaded program.
export class Method {
  constructor(program, name, info) {
    this.program = program;
    this.name = name;
    this.inputs = info.inputs;    // [{dtype, shape, symbolic_int}]
    this.outputs = info.outputs;
  }

  // Runs the method on .npy files (bytes, in input order); returns each
  // output as the bytes of a .npy file.
  execute(inputs) {
    return serial(async () => {
      const paths = inputs.map((bytes, i) => {
        if (!(bytes instanceof Uint8Array) && !(bytes instanceof ArrayBuffer)) {
          throw new WgrtError(`input ${i}: expected the bytes of a .npy file`);
        }
        return writeFile(new Uint8Array(bytes), '.npy');
      });
      const prefix = `/wgrt_out_${nextFile++}_`;
      try {
        const count = await call('wgrt_web_method_run', 'number', ['number', 'string', 'string', 'string'],
                                 [this.program.handle, this.name, JSON.stringify(paths), prefix]);
        const outputs = [];
        for (let i = 0; i < count; ++i) {
          outputs.push(engine.FS.readFile(`${prefix}${i}.npy`));
          removeFile(`${prefix}${i}.npy`);
        }
        return outputs;
      } finally {
        paths.forEach(removeFile);
      }
    });
  }
}

// An ExecuTorch program (.pte lowered with VulkanPartitioner).
export class Program {
  constructor(handle, info) {
    this.handle = handle;
    this.methods = info.methods;
  }

  method(name) {
    const info = this.methods[name];
    if (!info) throw new WgrtError(`no method '${name}'; the program has ${Object.keys(this.methods).join(', ')}`);
    return new Method(this, name, info);
  }

  free() {
    return serial(() => engine.ccall('wgrt_web_program_free', 'number', ['number'], [this.handle]));
  }
}

// Loads a .pte (and the .ptd holding its external weights, if any).
export async function loadProgram(pte, ptd = null) {
  await init();
  const pteBytes = await readBytes(pte);
  const ptdBytes = ptd ? await readBytes(ptd) : null;
  return serial(async () => {
    const ptePath = writeFile(pteBytes, '.pte');
    const ptdPath = ptdBytes ? writeFile(ptdBytes, '.ptd') : '';
    try {
      const handle = await call('wgrt_web_program_load', 'number', ['string', 'string'], [ptePath, ptdPath]);
      return new Program(handle, JSON.parse(await call('wgrt_web_program_info', 'string', ['number'], [handle])));
    } finally {
      removeFile(ptePath);
      if (ptdPath) removeFile(ptdPath);
    }
  });
}
