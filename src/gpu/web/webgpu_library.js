// webgpu.h for the browser: an emscripten JS library (em++ --js-library) that
// implements the webgpu.h calls src/gpu/ makes, on top of the page's
// navigator.gpu, plus the web twins of wgpu-native's own calls
// (web_native.cpp). Its helpers, the struct layout table among them, are in
// webgpu_support.js beside it (pass both with --js-library).
//
// Build flags it needs (tests/web/gpu_smoke/build.sh has the full line):
//   -sASYNCIFY -sWASM_BIGINT (ASYNCIFY also exports the malloc/free it uses)
//   -sASYNCIFY_IMPORTS=['wgpuInstanceProcessEvents','wgrt_web_poll','wgrt_web_poll_until']
// Those three are the Asyncify imports: they suspend the wasm stack while the
// browser runs its event loop (promises settle only there), then fire the
// AllowProcessEvents callbacks that became ready. A callback must not call
// them in turn (Asyncify cannot suspend from inside a suspending import).

mergeInto(LibraryManager.library, {
  // ---- instance ----
  wgpuCreateInstance__deps: ['$wgrt'],
  wgpuCreateInstance: function(desc) {
    if (desc && wgrt.u32(desc + wgrtLayout.InstanceDescriptor.requiredFeatureCount)) {
      console.error('webgpu_library: wgpuCreateInstance: instance features are not supported');
      return 0;
    }
    return wgrt.add('Instance', {});
  },
  wgpuInstanceRelease__deps: ['$wgrt'],
  wgpuInstanceRelease: function(h) { wgrt.release(h, 'Instance', 'wgpuInstanceRelease'); },
  wgpuInstanceProcessEvents__deps: ['$wgrt'],
  wgpuInstanceProcessEvents: function(h) {
    wgrt.entry(h, 'Instance', 'wgpuInstanceProcessEvents');
    wgrt.suspend(function() {
      wgrt.devices.forEach(wgrt.flushCommands);
      return wgrt.tick();
    });
  },
  wgpuInstanceRequestAdapter__deps: ['$wgrt'],
  wgpuInstanceRequestAdapter: function(instance, options, callbackInfo) {
    const fn = 'wgpuInstanceRequestAdapter', L = wgrtLayout, S = L.RequestAdapterStatus;
    wgrt.entry(instance, 'Instance', fn);
    const cb = wgrt.callbackInfo(callbackInfo, fn);
    const opts = {};
    if (options) {
      const power = wgrt.u32(options + L.RequestAdapterOptions.powerPreference);
      if (power === L.PowerPreference.HighPerformance) opts.powerPreference = 'high-performance';
      if (power === L.PowerPreference.LowPower) opts.powerPreference = 'low-power';
      if (wgrt.u32(options + L.RequestAdapterOptions.forceFallbackAdapter)) opts.forceFallbackAdapter = true;
    }
    if (typeof navigator == 'undefined' || !navigator.gpu) {
      wgrt.settle(cb, [S.Unavailable, 0], 'this browser has no WebGPU (navigator.gpu is missing; ' +
                  'Chromium needs a secure context, e.g. http://127.0.0.1, and a GPU or --enable-unsafe-webgpu)');
      return wgrt.future();
    }
    navigator.gpu.requestAdapter(opts).then(function(adapter) {
      if (adapter) wgrt.settle(cb, [S.Success, wgrt.add('Adapter', adapter)], '');
      else wgrt.settle(cb, [S.Unavailable, 0], 'navigator.gpu.requestAdapter() found no adapter');
    }, function(e) {
      wgrt.settle(cb, [S.Error, 0], 'navigator.gpu.requestAdapter() failed: ' + e);
    });
    return wgrt.future();
  },

  // ---- adapter ----
  wgpuAdapterRelease__deps: ['$wgrt'],
  wgpuAdapterRelease: function(h) { wgrt.release(h, 'Adapter', 'wgpuAdapterRelease'); },
  wgpuAdapterGetLimits__deps: ['$wgrt'],
  wgpuAdapterGetLimits: function(h, limits) {
    return wgrt.writeLimits(wgrt.get(h, 'Adapter', 'wgpuAdapterGetLimits').limits, limits);
  },
  wgpuAdapterHasFeature__deps: ['$wgrt'],
  wgpuAdapterHasFeature: function(h, feature) {
    return wgrt.hasFeature(wgrt.get(h, 'Adapter', 'wgpuAdapterHasFeature').features, feature);
  },
  wgpuAdapterGetInfo__deps: ['$wgrt'],
  wgpuAdapterGetInfo: function(h, p) {
    const adapter = wgrt.get(h, 'Adapter', 'wgpuAdapterGetInfo'), L = wgrtLayout, A = L.AdapterInfo;
    const info = adapter.info || {};  // GPUAdapter.info: Chrome 127+
    wgrt.writeString(p + A.vendor, info.vendor);
    wgrt.writeString(p + A.architecture, info.architecture);
    wgrt.writeString(p + A.device, info.device);
    wgrt.writeString(p + A.description, info.description);
    HEAPU32[(p + A.backendType) >>> 2] = L.BackendType_WebGPU;
    HEAPU32[(p + A.adapterType) >>> 2] = L.AdapterType_Unknown;  // browsers do not say
    HEAPU32[(p + A.vendorID) >>> 2] = 0;
    HEAPU32[(p + A.deviceID) >>> 2] = 0;
    HEAPU32[(p + A.subgroupMinSize) >>> 2] = info.subgroupMinSize || 0;
    HEAPU32[(p + A.subgroupMaxSize) >>> 2] = info.subgroupMaxSize || 0;
    return L.Status_Success;
  },
  // Takes WGPUAdapterInfo by value: p points to a copy.
  wgpuAdapterInfoFreeMembers__deps: ['$wgrt'],
  wgpuAdapterInfoFreeMembers: function(p) {
    const A = wgrtLayout.AdapterInfo;
    for (const offset of [A.vendor, A.architecture, A.device, A.description]) _free(wgrt.u32(p + offset));
  },
  wgpuAdapterRequestDevice__deps: ['$wgrt'],
  wgpuAdapterRequestDevice: function(h, desc, callbackInfo) {
    const fn = 'wgpuAdapterRequestDevice', L = wgrtLayout, D = L.DeviceDescriptor, S = L.RequestDeviceStatus;
    const adapter = wgrt.get(h, 'Adapter', fn);
    const cb = wgrt.callbackInfo(callbackInfo, fn);
    const gpuDesc = wgrt.deviceDescriptor(adapter, desc, fn);
    let lostCallback = null, errorCallback = null;
    if (desc) {
      lostCallback = wgrt.callbackInfo(desc + D.deviceLostCallbackInfo, fn);
      const U = L.UncapturedErrorCallbackInfo, u = desc + D.uncapturedErrorCallbackInfo;
      errorCallback = {callback: wgrt.u32(u + U.callback), userdata1: wgrt.u32(u + U.userdata1),
                       userdata2: wgrt.u32(u + U.userdata2)};
    }
    adapter.requestDevice(gpuDesc).then(function(device) {
      const d = {lostCallback: lostCallback, lostFired: false, onDrop: wgrt.dropDevice,
                 submitted: 0, completed: 0, inflight: new Map()};  // submissions: wgrt_web_submit
      wgrt.add('Device', device, d);
      // Uncaptured errors fire when the browser reports them (during a poll's wait).
      d.onError = function(ev) {
        if (errorCallback && errorCallback.callback) {
          wgrt.invoke(errorCallback, [wgrt.errorType(ev.error)], ev.error.message, d.handle);
        }
      };
      device.addEventListener('uncapturederror', d.onError);
      wgrt.devices.add(device);
      device.lost.then(function(info) {
        const R = L.DeviceLostReason;
        wgrt.fireLost(d, info.reason === 'destroyed' ? R.Destroyed : R.Unknown, info.message);
      });
      wgrt.settle(cb, [S.Success, d.handle], '');
    }, function(e) {
      if (lostCallback) wgrt.settle(lostCallback, [L.DeviceLostReason.FailedCreation], String(e), 0);
      wgrt.settle(cb, [S.Error, 0], 'GPUAdapter.requestDevice() failed: ' + (e && e.message || e));
    });
    return wgrt.future();
  },

  // ---- device ----
  wgpuDeviceRelease__deps: ['$wgrt'],
  wgpuDeviceRelease: function(h) { wgrt.release(h, 'Device', 'wgpuDeviceRelease'); },
  wgpuDeviceDestroy__deps: ['$wgrt'],
  wgpuDeviceDestroy: function(h) { wgrt.get(h, 'Device', 'wgpuDeviceDestroy').destroy(); },
  wgpuDeviceGetLimits__deps: ['$wgrt'],
  wgpuDeviceGetLimits: function(h, limits) {
    return wgrt.writeLimits(wgrt.get(h, 'Device', 'wgpuDeviceGetLimits').limits, limits);
  },
  wgpuDeviceHasFeature__deps: ['$wgrt'],
  wgpuDeviceHasFeature: function(h, feature) {
    return wgrt.hasFeature(wgrt.get(h, 'Device', 'wgpuDeviceHasFeature').features, feature);
  },
  wgpuDeviceGetQueue__deps: ['$wgrt'],
  wgpuDeviceGetQueue: function(h) {
    const d = wgrt.entry(h, 'Device', 'wgpuDeviceGetQueue');
    return wgrt.add('Queue', d.obj.queue, {device: d});  // the device entry keeps the submission counts
  },
  wgpuDevicePushErrorScope__deps: ['$wgrt'],
  wgpuDevicePushErrorScope: function(h, filter) {
    const fn = 'wgpuDevicePushErrorScope', name = wgrtLayout.ErrorFilter[filter];
    if (!name) wgrt.fail(fn, 'unknown WGPUErrorFilter ' + filter);
    wgrt.get(h, 'Device', fn).pushErrorScope(name);
  },
  wgpuDevicePopErrorScope__deps: ['$wgrt'],
  wgpuDevicePopErrorScope: function(h, callbackInfo) {
    const fn = 'wgpuDevicePopErrorScope', S = wgrtLayout.PopErrorScopeStatus;
    const device = wgrt.get(h, 'Device', fn), cb = wgrt.callbackInfo(callbackInfo, fn);
    device.popErrorScope().then(function(error) {
      wgrt.settle(cb, [S.Success, wgrt.errorType(error)], error ? error.message : '');
    }, function(e) {  // an empty scope stack
      wgrt.settle(cb, [S.Error, wgrtLayout.ErrorType.NoError], 'popErrorScope failed: ' + e);
    });
    return wgrt.future();
  },
  wgpuDeviceCreateBuffer__deps: ['$wgrt'],
  wgpuDeviceCreateBuffer: function(h, desc) {
    const B = wgrtLayout.BufferDescriptor, device = wgrt.get(h, 'Device', 'wgpuDeviceCreateBuffer');
    let buffer;
    try {
      buffer = device.createBuffer({label: wgrt.string(desc + B.label), size: wgrt.num64(desc + B.size),
                                    usage: wgrt.num64(desc + B.usage),
                                    mappedAtCreation: !!wgrt.u32(desc + B.mappedAtCreation)});
    } catch (e) {  // a RangeError (too large to map at creation): webgpu.h's NULL
      console.error('webgpu_library: wgpuDeviceCreateBuffer:', e);
      return 0;
    }
    return wgrt.add('Buffer', buffer, {mapped: new Map(), views: new Map(), written: new Set()});
  },
  wgpuDeviceCreateBindGroup__deps: ['$wgrt'],
  wgpuDeviceCreateBindGroup: function(h, desc) {
    const fn = 'wgpuDeviceCreateBindGroup', G = wgrtLayout.BindGroupDescriptor, E = wgrtLayout.BindGroupEntry;
    const device = wgrt.get(h, 'Device', fn), entries = [];
    const first = wgrt.u32(desc + G.entries);
    for (let i = 0; i < wgrt.u32(desc + G.entryCount); ++i) {
      const p = first + i * E.sizeof;
      if (wgrt.u32(p + E.sampler) || wgrt.u32(p + E.textureView)) wgrt.fail(fn, 'only buffer bindings are supported');
      const resource = {buffer: wgrt.get(wgrt.u32(p + E.buffer), 'Buffer', fn), offset: wgrt.num64(p + E.offset)};
      const size = wgrt.u64(p + E.size);
      if (size !== wgrt.allOnes64) resource.size = Number(size);  // WGPU_WHOLE_SIZE: the rest
      entries.push({binding: wgrt.u32(p + E.binding), resource: resource});
    }
    const layout = wgrt.get(wgrt.u32(desc + G.layout), 'BindGroupLayout', fn);
    return wgrt.add('BindGroup', device.createBindGroup({label: wgrt.string(desc + G.label), layout: layout,
                                                         entries: entries}));
  },
  wgpuDeviceCreateComputePipeline__deps: ['$wgrt'],
  wgpuDeviceCreateComputePipeline: function(h, desc) {
    const fn = 'wgpuDeviceCreateComputePipeline', L = wgrtLayout, P = L.ComputePipelineDescriptor;
    const C = L.ComputeState, K = L.ConstantEntry, device = wgrt.get(h, 'Device', fn);
    if (wgrt.u32(desc + P.layout)) wgrt.fail(fn, 'explicit pipeline layouts are not supported (only auto)');
    const state = desc + P.compute, constants = {}, first = wgrt.u32(state + C.constants);
    for (let i = 0; i < wgrt.u32(state + C.constantCount); ++i) {
      const p = first + i * K.sizeof;
      constants[wgrt.string(p + K.key)] = HEAPF64[(p + K.value) >>> 3];
    }
    return wgrt.add('ComputePipeline', device.createComputePipeline({
      label: wgrt.string(desc + P.label), layout: 'auto',
      compute: {module: wgrt.get(wgrt.u32(state + C.module), 'ShaderModule', fn),
                entryPoint: wgrt.string(state + C.entryPoint), constants: constants}}));
  },
  wgpuDeviceCreateCommandEncoder__deps: ['$wgrt'],
  wgpuDeviceCreateCommandEncoder: function(h, desc) {
    const device = wgrt.get(h, 'Device', 'wgpuDeviceCreateCommandEncoder');
    return wgrt.add('CommandEncoder', device.createCommandEncoder(
        {label: wgrt.label(desc, wgrtLayout.LabelOnlyDescriptor.label)}));
  },
  wgpuDeviceCreateQuerySet__deps: ['$wgrt'],
  wgpuDeviceCreateQuerySet: function(h, desc) {
    const fn = 'wgpuDeviceCreateQuerySet', Q = wgrtLayout.QuerySetDescriptor;
    const device = wgrt.get(h, 'Device', fn), type = wgrtLayout.QueryType[wgrt.u32(desc + Q.type)];
    if (!type) wgrt.fail(fn, 'unknown WGPUQueryType ' + wgrt.u32(desc + Q.type));
    return wgrt.add('QuerySet', device.createQuerySet({label: wgrt.string(desc + Q.label), type: type,
                                                       count: wgrt.u32(desc + Q.count)}));
  },
  // The web twin of wgpuDeviceCreateShaderModuleTrusted: WGSL only (browsers take no SPIR-V).
  wgrt_web_create_shader_module__deps: ['$wgrt'],
  wgrt_web_create_shader_module: function(h, desc) {
    const fn = 'wgrt_web_create_shader_module', L = wgrtLayout, device = wgrt.get(h, 'Device', fn);
    let chain = wgrt.u32(desc);  // nextInChain
    while (chain && wgrt.u32(chain + L.ChainedStruct.sType) !== L.SType_ShaderSourceWGSL) {
      chain = wgrt.u32(chain + L.ChainedStruct.next);
    }
    if (!chain) wgrt.fail(fn, 'no WGPUShaderSourceWGSL in nextInChain (browsers take WGSL only)');
    return wgrt.add('ShaderModule', device.createShaderModule({
      label: wgrt.string(desc + L.LabelOnlyDescriptor.label), code: wgrt.string(chain + L.ShaderSourceWGSL.code)}));
  },

  // ---- queue ----
  wgpuQueueRelease__deps: ['$wgrt'],
  wgpuQueueRelease: function(h) { wgrt.release(h, 'Queue', 'wgpuQueueRelease'); },
  wgpuQueueWriteBuffer__deps: ['$wgrt'],
  wgpuQueueWriteBuffer: function(h, buffer, offset, data, size) {
    const fn = 'wgpuQueueWriteBuffer', queue = wgrt.get(h, 'Queue', fn);
    // From a view of wasm memory: the browser copies the range before returning.
    queue.writeBuffer(wgrt.get(buffer, 'Buffer', fn), Number(wgrt.arg64(offset)), HEAPU8, data >>> 0, size >>> 0);
  },
  wgpuQueueSubmit__deps: ['$wgrt'],
  wgpuQueueSubmit: function(h, count, commands) {
    const fn = 'wgpuQueueSubmit', buffers = [];
    for (let i = 0; i < count >>> 0; ++i) buffers.push(wgrt.get(wgrt.u32(commands + 4 * i), 'CommandBuffer', fn));
    wgrt.get(h, 'Queue', fn).submit(buffers);
  },
  // wgpuQueueSubmitForIndex's twin: returns 1, 2, 3... and notes when each is done.
  // (uint32: 4 billion submissions would wrap.)
  wgrt_web_submit__deps: ['$wgrt'],
  wgrt_web_submit: function(h, commands) {
    const fn = 'wgrt_web_submit', q = wgrt.entry(h, 'Queue', fn), d = q.device;
    q.obj.submit([wgrt.get(commands, 'CommandBuffer', fn)]);
    const index = ++d.submitted;
    const done = function() {
      d.completed = Math.max(d.completed, index);
      d.inflight.delete(index);
    };
    d.inflight.set(index, q.obj.onSubmittedWorkDone().then(done, done));
    return index;
  },
  // wgpuDevicePoll's twins. Asyncify imports: they suspend the caller.
  wgrt_web_poll__deps: ['$wgrt'],
  wgrt_web_poll: function(h, wait) {
    const device = wgrt.get(h, 'Device', 'wgrt_web_poll');
    wgrt.suspend(async function() {
      const idle = wgrt.flushCommands(device);
      if (wait) await idle;
      await wgrt.tick();  // let the reactions to that (mapAsync, errors) run too
    });
  },
  wgrt_web_poll_until__deps: ['$wgrt'],
  wgrt_web_poll_until: function(h, index) {
    const fn = 'wgrt_web_poll_until', d = wgrt.entry(h, 'Device', fn);
    index >>>= 0;
    if (index > d.submitted) wgrt.fail(fn, 'submission ' + index + ' was never made (last: ' + d.submitted + ')');
    // Done already: no need to leave wasm. Not while rewinding: the call that
    // resumes after a wait must reach handleAsync again to end the rewind
    // (by then the work is done; skipping it leaves the stack half rewound).
    if (Asyncify.state === Asyncify.State.Normal && index <= d.completed) return wgrt.flush();
    const done = d.inflight.get(index);
    wgrt.suspend(function() { return done; });
  },

  // ---- buffers ----
  wgpuBufferAddRef__deps: ['$wgrt'],
  wgpuBufferAddRef: function(h) { wgrt.addRef(h, 'Buffer', 'wgpuBufferAddRef'); },
  wgpuBufferRelease__deps: ['$wgrt'],
  wgpuBufferRelease: function(h) { wgrt.release(h, 'Buffer', 'wgpuBufferRelease'); },
  wgpuBufferDestroy__deps: ['$wgrt'],
  wgpuBufferDestroy: function(h) {
    const b = wgrt.entry(h, 'Buffer', 'wgpuBufferDestroy');
    b.obj.destroy();  // unmaps too
    wgrt.freeMapped(b);
  },
  wgpuBufferGetUsage__deps: ['$wgrt'],
  wgpuBufferGetUsage: function(h) { return BigInt(wgrt.get(h, 'Buffer', 'wgpuBufferGetUsage').usage); },
  wgpuBufferMapAsync__deps: ['$wgrt'],
  wgpuBufferMapAsync: function(h, mode, offset, size, callbackInfo) {
    const fn = 'wgpuBufferMapAsync', S = wgrtLayout.MapAsyncStatus;
    const buffer = wgrt.get(h, 'Buffer', fn), cb = wgrt.callbackInfo(callbackInfo, fn);
    size >>>= 0;
    const args = [Number(wgrt.arg64(mode)), offset >>> 0];  // WGPUMapMode is uint64_t; its bits are GPUMapMode's
    if (size !== 0xFFFFFFFF) args.push(size);  // WGPU_WHOLE_MAP_SIZE: to the end
    buffer.mapAsync.apply(buffer, args).then(function() {
      wgrt.settle(cb, [S.Success], '');
    }, function(e) {  // AbortError: unmapped or destroyed before it mapped
      wgrt.settle(cb, [e && e.name === 'AbortError' ? S.Aborted : S.Error], 'GPUBuffer.mapAsync failed: ' + e);
    });
    return wgrt.future();
  },
  wgpuBufferGetConstMappedRange__deps: ['$wgrt'],
  wgpuBufferGetConstMappedRange: function(h, offset, size) {
    const b = wgrt.entry(h, 'Buffer', 'wgpuBufferGetConstMappedRange');
    offset >>>= 0;
    size >>>= 0;
    const key = offset + ':' + size;  // WebGPU refuses overlapping ranges: the same one again is the same copy
    if (b.mapped.has(key)) return b.mapped.get(key);
    let bytes;
    try {
      bytes = new Uint8Array(size === 0xFFFFFFFF ? b.obj.getMappedRange(offset) : b.obj.getMappedRange(offset, size));
    } catch (e) {  // not mapped, or out of range: webgpu.h's NULL
      console.error('webgpu_library: wgpuBufferGetConstMappedRange:', e);
      return 0;
    }
    const block = _malloc(Math.max(bytes.length, 1)) >>> 0;
    HEAPU8.set(bytes, block);
    b.mapped.set(key, block);
    b.views.set(key, bytes);  // WebGPU gives a range once per mapping: kept for a writable one's unmap
    return block;
  },
  // Writable: the range lives in wasm memory like a const one; what the
  // program wrote there is copied into the buffer's mapped range at unmap.
  // (A copy the native API does not make: ConstantUploader keeps the web's
  // uploads on queued writes, Device::direct_mapped_writes.)
  wgpuBufferGetMappedRange__deps: ['$wgrt', 'wgpuBufferGetConstMappedRange'],
  wgpuBufferGetMappedRange: function(h, offset, size) {
    const block = _wgpuBufferGetConstMappedRange(h, offset, size);
    if (block) wgrt.entry(h, 'Buffer', 'wgpuBufferGetMappedRange').written.add((offset >>> 0) + ':' + (size >>> 0));
    return block;
  },
  wgpuBufferUnmap__deps: ['$wgrt'],
  wgpuBufferUnmap: function(h) {
    const b = wgrt.entry(h, 'Buffer', 'wgpuBufferUnmap');
    for (const key of b.written.keys()) {
      const block = b.mapped.get(key), view = b.views.get(key);
      view.set(HEAPU8.subarray(block, block + view.length));
    }
    b.written.clear();
    b.views.clear();
    b.obj.unmap();
    wgrt.freeMapped(b);
  },

  // ---- pipelines, bind groups, shader modules, query sets ----
  wgpuComputePipelineGetBindGroupLayout__deps: ['$wgrt'],
  wgpuComputePipelineGetBindGroupLayout: function(h, index) {
    const pipeline = wgrt.get(h, 'ComputePipeline', 'wgpuComputePipelineGetBindGroupLayout');
    return wgrt.add('BindGroupLayout', pipeline.getBindGroupLayout(index >>> 0));
  },
  wgpuComputePipelineAddRef__deps: ['$wgrt'],
  wgpuComputePipelineAddRef: function(h) { wgrt.addRef(h, 'ComputePipeline', 'wgpuComputePipelineAddRef'); },
  wgpuComputePipelineRelease__deps: ['$wgrt'],
  wgpuComputePipelineRelease: function(h) { wgrt.release(h, 'ComputePipeline', 'wgpuComputePipelineRelease'); },
  wgpuBindGroupAddRef__deps: ['$wgrt'],
  wgpuBindGroupAddRef: function(h) { wgrt.addRef(h, 'BindGroup', 'wgpuBindGroupAddRef'); },
  wgpuBindGroupRelease__deps: ['$wgrt'],
  wgpuBindGroupRelease: function(h) { wgrt.release(h, 'BindGroup', 'wgpuBindGroupRelease'); },
  wgpuBindGroupLayoutRelease__deps: ['$wgrt'],
  wgpuBindGroupLayoutRelease: function(h) { wgrt.release(h, 'BindGroupLayout', 'wgpuBindGroupLayoutRelease'); },
  wgpuShaderModuleAddRef__deps: ['$wgrt'],
  wgpuShaderModuleAddRef: function(h) { wgrt.addRef(h, 'ShaderModule', 'wgpuShaderModuleAddRef'); },
  wgpuShaderModuleRelease__deps: ['$wgrt'],
  wgpuShaderModuleRelease: function(h) { wgrt.release(h, 'ShaderModule', 'wgpuShaderModuleRelease'); },
  wgpuQuerySetRelease__deps: ['$wgrt'],
  wgpuQuerySetRelease: function(h) { wgrt.release(h, 'QuerySet', 'wgpuQuerySetRelease'); },

  // ---- command encoding ----
  wgpuCommandEncoderRelease__deps: ['$wgrt'],
  wgpuCommandEncoderRelease: function(h) { wgrt.release(h, 'CommandEncoder', 'wgpuCommandEncoderRelease'); },
  wgpuCommandBufferRelease__deps: ['$wgrt'],
  wgpuCommandBufferRelease: function(h) { wgrt.release(h, 'CommandBuffer', 'wgpuCommandBufferRelease'); },
  wgpuCommandEncoderBeginComputePass__deps: ['$wgrt'],
  wgpuCommandEncoderBeginComputePass: function(h, desc) {
    const fn = 'wgpuCommandEncoderBeginComputePass', L = wgrtLayout, P = L.ComputePassDescriptor;
    const T = L.PassTimestampWrites, encoder = wgrt.get(h, 'CommandEncoder', fn), pass = {};
    if (desc) {
      pass.label = wgrt.string(desc + P.label);
      const t = wgrt.u32(desc + P.timestampWrites);
      if (t) {
        pass.timestampWrites = {querySet: wgrt.get(wgrt.u32(t + T.querySet), 'QuerySet', fn)};
        const begin = wgrt.u32(t + T.beginningOfPassWriteIndex), end = wgrt.u32(t + T.endOfPassWriteIndex);
        // WGPU_QUERY_SET_INDEX_UNDEFINED: no write
        if (begin !== 0xFFFFFFFF) pass.timestampWrites.beginningOfPassWriteIndex = begin;
        if (end !== 0xFFFFFFFF) pass.timestampWrites.endOfPassWriteIndex = end;
      }
    }
    return wgrt.add('ComputePassEncoder', encoder.beginComputePass(pass));
  },
  wgpuCommandEncoderCopyBufferToBuffer__deps: ['$wgrt'],
  wgpuCommandEncoderCopyBufferToBuffer: function(h, src, srcOffset, dst, dstOffset, size) {
    const fn = 'wgpuCommandEncoderCopyBufferToBuffer', source = wgrt.get(src, 'Buffer', fn);
    // WGPU_WHOLE_SIZE: to the end of the source
    srcOffset = Number(wgrt.arg64(srcOffset));
    size = wgrt.arg64(size);
    const bytes = size === wgrt.allOnes64 ? source.size - srcOffset : Number(size);
    wgrt.get(h, 'CommandEncoder', fn).copyBufferToBuffer(source, srcOffset, wgrt.get(dst, 'Buffer', fn),
                                                         Number(wgrt.arg64(dstOffset)), bytes);
  },
  wgpuCommandEncoderResolveQuerySet__deps: ['$wgrt'],
  wgpuCommandEncoderResolveQuerySet: function(h, querySet, first, count, dst, dstOffset) {
    const fn = 'wgpuCommandEncoderResolveQuerySet';
    wgrt.get(h, 'CommandEncoder', fn).resolveQuerySet(wgrt.get(querySet, 'QuerySet', fn), first >>> 0, count >>> 0,
                                                      wgrt.get(dst, 'Buffer', fn), Number(wgrt.arg64(dstOffset)));
  },
  wgpuCommandEncoderFinish__deps: ['$wgrt'],
  wgpuCommandEncoderFinish: function(h, desc) {
    const encoder = wgrt.get(h, 'CommandEncoder', 'wgpuCommandEncoderFinish');
    return wgrt.add('CommandBuffer', encoder.finish({label: wgrt.label(desc, wgrtLayout.LabelOnlyDescriptor.label)}));
  },
  wgpuComputePassEncoderRelease__deps: ['$wgrt'],
  wgpuComputePassEncoderRelease: function(h) {
    wgrt.release(h, 'ComputePassEncoder', 'wgpuComputePassEncoderRelease');
  },
  wgpuComputePassEncoderSetPipeline__deps: ['$wgrt'],
  wgpuComputePassEncoderSetPipeline: function(h, pipeline) {
    const fn = 'wgpuComputePassEncoderSetPipeline';
    wgrt.get(h, 'ComputePassEncoder', fn).setPipeline(wgrt.get(pipeline, 'ComputePipeline', fn));
  },
  wgpuComputePassEncoderSetBindGroup__deps: ['$wgrt'],
  wgpuComputePassEncoderSetBindGroup: function(h, index, group, offsetCount, offsets) {
    const fn = 'wgpuComputePassEncoderSetBindGroup', pass = wgrt.get(h, 'ComputePassEncoder', fn);
    const dynamic = [];
    for (let i = 0; i < offsetCount >>> 0; ++i) dynamic.push(wgrt.u32(offsets + 4 * i));
    pass.setBindGroup(index >>> 0, wgrt.optional(group, 'BindGroup', fn), dynamic);
  },
  wgpuComputePassEncoderDispatchWorkgroups__deps: ['$wgrt'],
  wgpuComputePassEncoderDispatchWorkgroups: function(h, x, y, z) {
    wgrt.get(h, 'ComputePassEncoder', 'wgpuComputePassEncoderDispatchWorkgroups')
        .dispatchWorkgroups(x >>> 0, y >>> 0, z >>> 0);
  },
  wgpuComputePassEncoderEnd__deps: ['$wgrt'],
  wgpuComputePassEncoderEnd: function(h) { wgrt.get(h, 'ComputePassEncoder', 'wgpuComputePassEncoderEnd').end(); },
});
