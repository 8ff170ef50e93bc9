// Support for webgpu_library.js (the webgpu.h calls themselves): the wasm32
// layout of webgpu.h's structs, the handle table, reading and writing wasm
// memory, calling C callbacks, and suspending the wasm stack (Asyncify).
// emscripten --js-library, like webgpu_library.js; both are needed.
//
// Conventions:
// - Handles are integers (from 1, never reused, so a stale handle is caught)
//   into wgrt.objects: {kind, obj, refs, ...}.
// - uint64_t arguments and fields are BigInt (WASM_BIGINT); arguments are
//   signed (WGPU_WHOLE_SIZE comes as -1n), hence wgrt.arg64; size_t, pointers
//   and uint32_t arguments arrive as signed 32-bit Numbers, hence `>>> 0`
//   (with memory above 2 GiB a pointer is negative until then; `p >>> 2`
//   indexing is right either way, a byte index must be unsigned).
// - Every struct offset and enum value is in $wgrtLayout below, and
//   src/gpu/web/layout_check.cpp static_asserts each against webgpu.h.
// - A bad handle or an enum value this library does not know is a defect in
//   the caller: console.error and abort().
// - Emscripten 3.1.6 prints these functions through an old minifier: no
//   BigInt literals (1n), no destructuring (const [a, b] = ...); build.sh
//   runs `node --check` on its output.

mergeInto(LibraryManager.library, {
  // wasm32 layout of webgpu.h: byte offsets, sizes and enum values. Keep in
  // step with layout_check.cpp (same names, same numbers).
  $wgrtLayout: {
    StringView: {data: 0, length: 4},
    ChainedStruct: {next: 0, sType: 4},
    // Every WGPU*CallbackInfo with a mode: RequestAdapter, RequestDevice,
    // BufferMap, PopErrorScope, DeviceLost.
    CallbackInfo: {mode: 4, callback: 8, userdata1: 12, userdata2: 16},
    UncapturedErrorCallbackInfo: {callback: 4, userdata1: 8, userdata2: 12},
    InstanceDescriptor: {requiredFeatureCount: 4},
    RequestAdapterOptions: {powerPreference: 8, forceFallbackAdapter: 12},
    AdapterInfo: {vendor: 4, architecture: 12, device: 20, description: 28, backendType: 36,
                  adapterType: 40, vendorID: 44, deviceID: 48, subgroupMinSize: 52, subgroupMaxSize: 56},
    // [WebGPU name (= WGPULimits field), offset, bytes]
    Limits: [
      ['maxTextureDimension1D', 4, 4], ['maxTextureDimension2D', 8, 4], ['maxTextureDimension3D', 12, 4],
      ['maxTextureArrayLayers', 16, 4], ['maxBindGroups', 20, 4], ['maxBindGroupsPlusVertexBuffers', 24, 4],
      ['maxBindingsPerBindGroup', 28, 4], ['maxDynamicUniformBuffersPerPipelineLayout', 32, 4],
      ['maxDynamicStorageBuffersPerPipelineLayout', 36, 4], ['maxSampledTexturesPerShaderStage', 40, 4],
      ['maxSamplersPerShaderStage', 44, 4], ['maxStorageBuffersPerShaderStage', 48, 4],
      ['maxStorageTexturesPerShaderStage', 52, 4], ['maxUniformBuffersPerShaderStage', 56, 4],
      ['maxUniformBufferBindingSize', 64, 8], ['maxStorageBufferBindingSize', 72, 8],
      ['minUniformBufferOffsetAlignment', 80, 4], ['minStorageBufferOffsetAlignment', 84, 4],
      ['maxVertexBuffers', 88, 4], ['maxBufferSize', 96, 8], ['maxVertexAttributes', 104, 4],
      ['maxVertexBufferArrayStride', 108, 4], ['maxInterStageShaderVariables', 112, 4],
      ['maxColorAttachments', 116, 4], ['maxColorAttachmentBytesPerSample', 120, 4],
      ['maxComputeWorkgroupStorageSize', 124, 4], ['maxComputeInvocationsPerWorkgroup', 128, 4],
      ['maxComputeWorkgroupSizeX', 132, 4], ['maxComputeWorkgroupSizeY', 136, 4],
      ['maxComputeWorkgroupSizeZ', 140, 4], ['maxComputeWorkgroupsPerDimension', 144, 4],
      ['maxImmediateSize', 148, 4],
    ],
    DeviceDescriptor: {label: 4, requiredFeatureCount: 12, requiredFeatures: 16, requiredLimits: 20,
                       defaultQueue: 24, deviceLostCallbackInfo: 36, uncapturedErrorCallbackInfo: 56},
    // The label of every descriptor that has only a label (Queue,
    // CommandEncoder, CommandBuffer) and of ShaderModule: after nextInChain.
    LabelOnlyDescriptor: {label: 4},
    BufferDescriptor: {label: 4, usage: 16, size: 24, mappedAtCreation: 32},
    BindGroupDescriptor: {label: 4, layout: 12, entryCount: 16, entries: 20},
    BindGroupEntry: {binding: 4, buffer: 8, offset: 16, size: 24, sampler: 32, textureView: 36, sizeof: 40},
    ComputePipelineDescriptor: {label: 4, layout: 12, compute: 16},
    ComputeState: {module: 4, entryPoint: 8, constantCount: 16, constants: 20},
    ConstantEntry: {key: 4, value: 16, sizeof: 24},
    QuerySetDescriptor: {label: 4, type: 12, count: 16},
    ComputePassDescriptor: {label: 4, timestampWrites: 12},
    PassTimestampWrites: {querySet: 4, beginningOfPassWriteIndex: 8, endOfPassWriteIndex: 12},
    ShaderSourceWGSL: {code: 8},

    SType_ShaderSourceWGSL: 2,
    CallbackMode: {AllowProcessEvents: 2, AllowSpontaneous: 3},
    Status_Success: 1,
    RequestAdapterStatus: {Success: 1, Unavailable: 3, Error: 4},
    RequestDeviceStatus: {Success: 1, Error: 3},
    MapAsyncStatus: {Success: 1, Error: 3, Aborted: 4},
    PopErrorScopeStatus: {Success: 1, Error: 3},
    ErrorType: {NoError: 1, Validation: 2, OutOfMemory: 3, Internal: 4, Unknown: 5},
    DeviceLostReason: {Unknown: 1, Destroyed: 2, FailedCreation: 4},
    PowerPreference: {LowPower: 1, HighPerformance: 2},
    BackendType_WebGPU: 2,
    AdapterType_Unknown: 4,
    // WGPUErrorFilter, WGPUQueryType -> WebGPU strings.
    ErrorFilter: {1: 'validation', 2: 'out-of-memory', 3: 'internal'},
    QueryType: {1: 'occlusion', 2: 'timestamp'},
    // WGPUFeatureName (and wgpu.h's WGPUNativeFeature_Subgroup) -> WebGPU names.
    FeatureName: {
      0x01: 'core-features-and-limits', 0x02: 'depth-clip-control', 0x03: 'depth32float-stencil8',
      0x04: 'texture-compression-bc', 0x05: 'texture-compression-bc-sliced-3d', 0x06: 'texture-compression-etc2',
      0x07: 'texture-compression-astc', 0x08: 'texture-compression-astc-sliced-3d', 0x09: 'timestamp-query',
      0x0A: 'indirect-first-instance', 0x0B: 'shader-f16', 0x0C: 'rg11b10ufloat-renderable',
      0x0D: 'bgra8unorm-storage', 0x0E: 'float32-filterable', 0x0F: 'float32-blendable', 0x10: 'clip-distances',
      0x11: 'dual-source-blending', 0x12: 'subgroups', 0x13: 'texture-formats-tier1',
      0x14: 'texture-formats-tier2', 0x15: 'primitive-index', 0x16: 'texture-component-swizzle',
      0x30021: 'subgroups',
    },
    // WGPUBufferUsage and WGPUMapMode bits equal GPUBufferUsage and GPUMapMode's: passed through.
  },

  $wgrt__deps: ['$wgrtLayout', '$Asyncify', 'malloc', 'free'],
  // BigInt literals (1n) are beyond emscripten 3.1.6's JS minifier: made at start-up.
  $wgrt__postset: 'wgrt.objects = new Map(); wgrt.devices = new Set(); ' +
                  'wgrt.allOnes64 = BigInt.asUintN(64, BigInt(-1));',
  $wgrt: {
    objects: null,
    devices: null,  // the live GPUDevices
    allOnes64: null,  // WGPU_WHOLE_SIZE, WGPU_LIMIT_U64_UNDEFINED
    nextHandle: 1,
    futures: 0,
    pending: [],  // AllowProcessEvents callbacks, fired by the next poll
    ticks: [],
    channel: null,

    // ---- handles ----
    fail: function(fn, what) {
      console.error('webgpu_library: ' + fn + ': ' + what);
      abort(fn + ': ' + what);
    },
    // `entry` (optional) is the table entry to use, with its own fields.
    add: function(kind, obj, entry) {
      const h = wgrt.nextHandle++;
      entry = entry || {};
      entry.kind = kind;
      entry.obj = obj;
      entry.refs = 1;
      entry.handle = h;
      wgrt.objects.set(h, entry);
      return h;
    },
    entry: function(h, kind, fn) {
      const e = wgrt.objects.get(h >>> 0);
      if (!e || e.kind !== kind) wgrt.fail(fn, 'invalid ' + kind + ' handle ' + h);
      return e;
    },
    get: function(h, kind, fn) { return wgrt.entry(h, kind, fn).obj; },
    optional: function(h, kind, fn) { return h ? wgrt.get(h, kind, fn) : null; },
    addRef: function(h, kind, fn) { wgrt.entry(h, kind, fn).refs++; },
    release: function(h, kind, fn) {
      const e = wgrt.entry(h, kind, fn);
      if (--e.refs > 0) return;
      wgrt.objects.delete(h >>> 0);
      if (e.onDrop) e.onDrop(e);
    },
    future: function() { return BigInt(++wgrt.futures); },  // WGPUFuture {uint64_t id} returns as i64

    // ---- reading and writing wasm memory ----
    u32: function(p) { return HEAPU32[p >>> 2]; },
    u64: function(p) { return HEAPU64[p >>> 3]; },  // BigInt
    num64: function(p) { return Number(HEAPU64[p >>> 3]); },  // sizes and offsets: exact below 2^53
    arg64: function(v) { return BigInt.asUintN(64, v); },  // a uint64_t argument, as unsigned
    // WGPUStringView at p -> string, or undefined for the null view.
    string: function(p) {
      const data = HEAPU32[p >>> 2], length = HEAPU32[(p + 4) >>> 2];
      if (!data) return undefined;
      return length === 0xFFFFFFFF ? UTF8ToString(data) : UTF8ToString(data, length);
    },
    label: function(desc, offset) { return desc ? wgrt.string(desc + offset) : undefined; },
    // Writes a malloc'd copy of `text` as the WGPUStringView at p ({NULL, 0} for '').
    writeString: function(p, text) {
      let data = 0, length = 0;
      if (text) {
        length = lengthBytesUTF8(text);
        data = _malloc(length + 1) >>> 0;
        stringToUTF8(text, data, length + 1);
      }
      HEAPU32[p >>> 2] = data;
      HEAPU32[(p + 4) >>> 2] = length;
    },
    featureName: function(value) { return wgrtLayout.FeatureName[value >>> 0]; },
    errorType: function(error) {
      const T = wgrtLayout.ErrorType;
      if (!error) return T.NoError;
      if (typeof GPUValidationError != 'undefined' && error instanceof GPUValidationError) return T.Validation;
      if (typeof GPUOutOfMemoryError != 'undefined' && error instanceof GPUOutOfMemoryError) return T.OutOfMemory;
      if (typeof GPUInternalError != 'undefined' && error instanceof GPUInternalError) return T.Internal;
      return T.Unknown;
    },

    // ---- callbacks ----
    // A WGPU*CallbackInfo (with a mode), checked now rather than when it fires.
    callbackInfo: function(p, fn) {
      const C = wgrtLayout.CallbackInfo, M = wgrtLayout.CallbackMode;
      const info = {mode: wgrt.u32(p + C.mode), callback: wgrt.u32(p + C.callback),
                    userdata1: wgrt.u32(p + C.userdata1), userdata2: wgrt.u32(p + C.userdata2)};
      if (info.callback && info.mode !== M.AllowProcessEvents && info.mode !== M.AllowSpontaneous) {
        wgrt.fail(fn, 'callback mode ' + info.mode + ' is not supported (AllowProcessEvents, AllowSpontaneous)');
      }
      return info;
    },
    // Calls callback(lead..., message, userdata1, userdata2). wasm32 passes the
    // WGPUStringView by pointer to a copy, and a device callback's first
    // argument is a WGPUDevice const*: both live in one malloc'd block.
    invoke: function(info, lead, message, device) {
      if (!info.callback) return;
      const text = message || '';
      const bytes = lengthBytesUTF8(text) + 1;
      const block = _malloc(12 + bytes) >>> 0;  // [0,8) WGPUStringView, [8,12) WGPUDevice, [12,..) text
      stringToUTF8(text, block + 12, bytes);
      HEAPU32[block >>> 2] = block + 12;
      HEAPU32[(block + 4) >>> 2] = bytes - 1;
      HEAPU32[(block + 8) >>> 2] = device || 0;
      const args = (device === undefined ? [] : [block + 8]).concat(lead, [block, info.userdata1, info.userdata2]);
      try {
        wasmTable.get(info.callback).apply(null, args);
      } finally {
        _free(block);
      }
    },
    // Fires now (AllowSpontaneous) or at the end of the next poll (AllowProcessEvents).
    settle: function(info, lead, message, device) {
      const run = function() { wgrt.invoke(info, lead, message, device); };
      if (info.mode === wgrtLayout.CallbackMode.AllowProcessEvents) wgrt.pending.push(run);
      else run();
    },
    // One at a time: a callback that throws (a C++ exception) leaves the rest queued.
    flush: function() {
      while (wgrt.pending.length) wgrt.pending.shift()();
    },

    // ---- suspending (Asyncify) ----
    // A trip through the browser's event loop. MessageChannel, not
    // setTimeout(0), which browsers stretch to 4 ms once timers nest.
    tick: function() {
      return new Promise(function(resolve) {
        if (typeof MessageChannel == 'undefined') return setTimeout(resolve, 0);
        if (!wgrt.channel) {
          wgrt.channel = new MessageChannel();
          wgrt.channel.port1.onmessage = function() { wgrt.ticks.shift()(); };
        }
        wgrt.ticks.push(resolve);
        wgrt.channel.port2.postMessage(0);
      });
    },
    // Every call of a suspending import must come here in the same way
    // whether it starts a wait or resumes from one.
    // Suspends the calling wasm code until `work()` (a promise) settles, then
    // fires the queued callbacks. Asyncify runs this import twice: first it
    // starts the wait and the stack unwinds (state Unwinding: nothing more to
    // do); then, once the promise settled, the rewind calls it again and
    // handleAsync returns in state Normal, inside the original call: the
    // callbacks run there, as if from a synchronous poll.
    suspend: function(work) {
      Asyncify.handleAsync(async function() {
        try {
          await work();
        } catch (e) {  // handleAsync never wakes up from a rejected promise
          console.error('webgpu_library: while waiting:', e);
        }
      });
      if (Asyncify.state === Asyncify.State.Normal) wgrt.flush();
    },

    // ---- devices ----
    // Chromium holds back the commands it records until a call that needs
    // an answer: errors from createBuffer and the like would never come.
    // onSubmittedWorkDone is such a call; returns its promise.
    flushCommands: function(device) {
      return device.queue.onSubmittedWorkDone().catch(function() {});
    },
    // The device-lost callback fires once: when the browser reports the loss,
    // or when the last reference goes (its userdata may not outlive that).
    fireLost: function(d, reason, message) {
      if (d.lostFired) return;
      d.lostFired = true;
      if (d.lostCallback) wgrt.settle(d.lostCallback, [reason], message, d.handle);
    },
    dropDevice: function(d) {
      wgrt.devices.delete(d.obj);
      d.obj.removeEventListener('uncapturederror', d.onError);
      wgrt.fireLost(d, wgrtLayout.DeviceLostReason.Destroyed, 'the device was released');
      d.obj.destroy();  // webgpu.h destroys a device with its last reference; a page would wait for GC
    },
    // Reads WGPUDeviceDescriptor into a GPUDeviceDescriptor, checked against the adapter.
    deviceDescriptor: function(adapter, desc, fn) {
      const L = wgrtLayout, D = L.DeviceDescriptor;
      const out = {requiredFeatures: [], requiredLimits: {}};
      if (!desc) return out;
      out.label = wgrt.string(desc + D.label);
      out.defaultQueue = {label: wgrt.string(desc + D.defaultQueue + L.LabelOnlyDescriptor.label)};
      const features = wgrt.u32(desc + D.requiredFeatures);
      for (let i = 0; i < wgrt.u32(desc + D.requiredFeatureCount); ++i) {
        const value = wgrt.u32(features + 4 * i), name = wgrt.featureName(value);
        if (!name) wgrt.fail(fn, 'unknown WGPUFeatureName ' + value);
        if (!out.requiredFeatures.includes(name)) out.requiredFeatures.push(name);
      }
      const limits = wgrt.u32(desc + D.requiredLimits);
      if (limits) {
        for (const field of L.Limits) {
          const name = field[0], offset = field[1];
          const v = field[2] === 8 ? wgrt.u64(limits + offset) : wgrt.u32(limits + offset);
          if (v === 0xFFFFFFFF || v === wgrt.allOnes64) continue;  // WGPU_LIMIT_U32/U64_UNDEFINED
          // A limit the browser does not know (a field newer than it) would
          // fail the request; GetLimits reported it as 0: leave it out.
          if (!(name in adapter.limits)) continue;
          out.requiredLimits[name] = Number(v);
        }
      }
      return out;
    },
    writeLimits: function(limits, p) {
      // (No destructuring in loops: emscripten 3.1.6's minifier drops it.)
      for (const field of wgrtLayout.Limits) {
        const v = limits[field[0]] || 0;  // one the browser lacks: 0
        if (field[2] === 8) HEAPU64[(p + field[1]) >>> 3] = BigInt(v);
        else HEAPU32[(p + field[1]) >>> 2] = v;
      }
      return wgrtLayout.Status_Success;
    },
    hasFeature: function(features, value) {
      // An enum value without a WebGPU name is a feature the browser cannot have.
      const name = wgrt.featureName(value);
      return name && features.has(name) ? 1 : 0;
    },

    // ---- buffers ----
    // getMappedRange copies, freed at unmap (the ArrayBuffers are not in wasm memory).
    freeMapped: function(b) {
      for (const block of b.mapped.values()) _free(block);
      b.mapped.clear();
    },
  },
});
