// Screen reader announcements through one polite aria-live region (#announce):
// the first line of a hovered or pinned item's text once it stayed DELAY ms.
const DELAY = 400; // ms
const region = document.getElementById('announce');
let timer = 0;

/** Says the first line of `text` once it has stayed DELAY ms (a later call replaces it). */
export function announce(text) {
  clearTimeout(timer);
  const line = String(text || '').split('\n', 1)[0].trim();
  timer = setTimeout(() => {
    timer = 0;
    if (line && region.textContent !== line) region.textContent = line;
  }, DELAY);
}

/** Drops what was waiting to be said (the page was reset). */
export function silence() {
  clearTimeout(timer);
  timer = 0;
  region.textContent = '';
}
