// The engine-analysis page of the mod view (/mod/@/{name}/analysis): while the job is queued or
// running, polls its progress (GET /mod/@/{name}/analysis.json) and moves the progress bar; when
// the job ends, reloads the page to show the figures. Without this script a reload shows the same.

const box = document.getElementById("analysis-job");
const url = box ? box.dataset.poll : null;
const bar = document.getElementById("analysis-progress");
const text = document.getElementById("analysis-progress-text");
const stateText = document.getElementById("analysis-state");

async function poll() {
  let p;
  try {
    const r = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
    if (!r.ok) throw new Error(String(r.status));
    p = await r.json();
  } catch {
    setTimeout(poll, 5000);
    return;
  }
  if (p.gamesTotal > 0) {
    bar.max = p.gamesTotal;
    bar.value = p.gamesDone;
    bar.textContent = `${p.gamesDone} of ${p.gamesTotal}`;
  }
  text.textContent = p.text;
  stateText.textContent = p.state;
  box.dataset.state = p.state;
  if (p.state === "queued" || p.state === "running") {
    setTimeout(poll, 1500);
  } else {
    location.reload();
  }
}

if (url && bar && text && stateText) setTimeout(poll, 1000);
