// The page around wgrt.mjs: load a GGUF and chat with it, or load a .pte and
// run a method on .npy files. Every failure is shown, and the page stays usable.
import * as wgrt from './wgrt.mjs';

const $ = (id) => document.getElementById(id);
let model = null;
let program = null;
let history = [];
let abort = null;

function showError(e) {
  $('error').textContent = e ? String(e.message ?? e) : '';
  if (e) console.error(e);
}

function showProgress(done, total, stage) {
  const bar = $('load-progress');
  bar.hidden = false;
  bar.max = total || 1;
  bar.value = done;
  bar.title = stage;
  $('model-info').textContent = `${stage}: ${total ? Math.round(100 * done / total) : 0} %`;
}

async function loadModel() {
  showError(null);
  const file = $('gguf-file').files[0];
  const source = file ?? $('gguf-url').value.trim();
  if (!source) return showError('choose a .gguf file or type its URL');
  $('gguf-load').disabled = true;
  try {
    if (model) await model.free();
    model = null;
    model = await wgrt.loadModel(source, {onProgress: showProgress});
    history = [];
    $('chat').textContent = '';
    $('model-info').textContent = `${model.info.description} — context ${model.info.context}`;
    $('prompt').disabled = $('send').disabled = false;
  } catch (e) {
    $('model-info').textContent = '';
    showError(e);
  } finally {
    $('load-progress').hidden = true;
    $('gguf-load').disabled = false;
  }
}

async function send() {
  const text = $('prompt').value.trim();
  if (!text || !model) return;
  showError(null);
  $('prompt').value = '';
  $('send').disabled = true;
  $('stop').disabled = false;
  abort = new AbortController();
  history.push({role: 'user', content: text});
  $('chat').textContent += `\n> ${text}\n`;
  let reply = '';
  try {
    const options = {temperature: Number($('temperature').value), maxTokens: Number($('max-tokens').value),
                     signal: abort.signal};
    const steps = model.chat(history, options);
    for (let r = await steps.next(); ; r = await steps.next()) {
      if (r.done) {
        const s = r.value;
        $('speed').textContent = `prompt ${s.prompt_tokens} tokens at ${s.prompt_tokens_per_second.toFixed(1)} tokens/s; ` +
            `${s.generated_tokens} tokens at ${s.generate_tokens_per_second.toFixed(1)} tokens/s`;
        break;
      }
      reply += r.value.text;
      $('chat').textContent += r.value.text;
    }
    history.push({role: 'assistant', content: reply});
  } catch (e) {
    history.pop();
    showError(e);
  } finally {
    $('send').disabled = false;
    $('stop').disabled = true;
  }
}

async function loadProgram() {
  showError(null);
  const pte = $('pte-file').files[0];
  if (!pte) return showError('choose a .pte file');
  try {
    if (program) await program.free();
    program = null;
    program = await wgrt.loadProgram(pte, $('ptd-file').files[0] ?? null);
    const names = Object.keys(program.methods);
    $('method').replaceChildren(...names.map((n) => new Option(n, n)));
    $('program-info').textContent = names.map((n) =>
      `${n}(${program.methods[n].inputs.map((t) => `${t.dtype}[${t.shape}]`).join(', ')})`).join('; ');
    $('run').disabled = false;
  } catch (e) {
    $('program-info').textContent = '';
    showError(e);
  }
}

async function run() {
  showError(null);
  try {
    const files = [...$('npy-files').files];
    const inputs = await Promise.all(files.map(async (f) => new Uint8Array(await f.arrayBuffer())));
    const outputs = await program.method($('method').value).execute(inputs);
    $('outputs').replaceChildren(...outputs.map((bytes, i) => {
      const a = document.createElement('a');
      a.href = URL.createObjectURL(new Blob([bytes], {type: 'application/octet-stream'}));
      a.download = `output_${i}.npy`;
      a.textContent = `output_${i}.npy (${bytes.length} bytes)`;
      const li = document.createElement('li');
      li.append(a);
      return li;
    }));
  } catch (e) {
    showError(e);
  }
}

$('gguf-load').onclick = loadModel;
$('send').onclick = send;
$('prompt').onkeydown = (e) => { if (e.key === 'Enter') send(); };
$('stop').onclick = () => abort?.abort();
$('pte-load').onclick = loadProgram;
$('run').onclick = run;
window.wgrt = wgrt;  // for the console and the browser tests

const limits = new URLSearchParams(location.search).get('limits') ?? 'adapter';
wgrt.init({limits}).then(
  (d) => { $('device').textContent = `WebGPU: ${d.adapter}${d.f16 ? ', f16' : ', no shader-f16'} (${d.limits_mode} limits)`; },
  (e) => { $('device').textContent = 'No WebGPU device.'; showError(e); });
