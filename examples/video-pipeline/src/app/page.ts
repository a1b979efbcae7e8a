// A small page to play a finished render: the API key and a job id (both printed by
// `npm run example:video`). The MP4 is fetched with the key in the Authorization header, as
// the route requires, and played from a blob URL (a <video src> cannot carry a header).
export const PAGE_HTML = `<!doctype html>
<meta charset="utf-8">
<title>Sluice video.render</title>
<style>body{font:15px system-ui;margin:2rem;max-width:44rem}input{width:100%;margin:.2rem 0 .8rem}video{width:100%;background:#000}</style>
<h1>video.render</h1>
<label>API key <input id="key" autocomplete="off"></label>
<label>Job id <input id="job"></label>
<button id="play">Play</button> <a id="save" hidden>Download</a>
<p id="status"></p>
<video id="video" controls></video>
<script>
const $ = (id) => document.getElementById(id);
$('key').value = localStorage.getItem('sluiceKey') || '';
$('job').value = new URLSearchParams(location.search).get('job') || '';
$('play').onclick = async () => {
  localStorage.setItem('sluiceKey', $('key').value);
  $('status').textContent = 'loading…';
  const res = await fetch('/video/jobs/' + encodeURIComponent($('job').value) + '/final.mp4', {
    headers: { authorization: 'Bearer ' + $('key').value },
  });
  if (!res.ok) { $('status').textContent = 'HTTP ' + res.status + ': ' + (await res.text()); return; }
  const url = URL.createObjectURL(await res.blob());
  $('video').src = url;
  $('save').href = url; $('save').download = $('job').value + '.mp4'; $('save').hidden = false;
  $('status').textContent = '';
  await $('video').play().catch(() => {});
};
</script>
`;
