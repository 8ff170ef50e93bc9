// The page's files as the engine reads them (page_file.cpp): wgrt.mjs keeps
// each model's Blob (a File from an input, a download, or bytes) in
// Module.wgrtSources by number, and the engine asks for byte ranges as
// loading needs them. An Asyncify import: the engine waits while the
// browser reads, so a model never has to fit in wasm memory whole.
mergeInto(LibraryManager.library, {
  // Bytes [offset, offset + length) of source `id` into wasm memory at
  // `dest`. 1 when done, 0 when the source is gone or the read fell short
  // (the engine names the file and range in its error).
  wgrt_web_read_range: function(id, offset, length, dest) {
    return Asyncify.handleAsync(async function() {
      const blob = Module.wgrtSources && Module.wgrtSources.get(id);
      if (!blob) return 0;
      try {
        const bytes = new Uint8Array(await blob.slice(offset, offset + length).arrayBuffer());
        if (bytes.length !== length) return 0;
        HEAPU8.set(bytes, dest);  // HEAPU8 after the wait: memory may have grown meanwhile
        return 1;
      } catch (e) {
        console.warn('wgrt_web_read_range:', e);
        return 0;
      }
    });
  },
});
