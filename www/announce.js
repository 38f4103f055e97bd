// Screen reader announcements: the hovered or pinned item's text, said
// through one polite aria-live region (#announce in index.html, visually
// hidden). Hover changes with every pointer move, so only the text that stays
// put for DELAY ms is said, and only its first line (the address, size and
// total; the stack trace stays in #context for whoever wants to read it).
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
