// @ts-check
//# allFunctionsCalledOnLoad
// The hover card (#hover-card, its template in index.html): what the band under the pointer
// is, beside it and inside the viewport; the user's frames first, torch and C++ folded (the
// core's rule: format.rs hover_card). A pinned card stays and takes the pointer.
import { $, fill } from './bind.js';

const card = $('hover-card'), more = /** @type {HTMLDetailsElement} */ (card.querySelector('.card-folded'));
const GAP = 14; // px between the pointer and the card
let pinned = false;
let size = [0, 0]; // [w, h] of the card as last filled: read once per fill, not per move
let at = [0, 0]; // the client point it was last placed beside

/** Fills the card from the viewer's card or, where there is no element, a plain text.
 * @param {import('./types').Card | null} c @param {string} text */
function show(c, text) {
  if ((card.hidden = !c && !text)) return false;
  const [first, ...notes] = c ? c.head.split('\n') : [text];
  fill(card, { ...c, first, notes: notes.join('\n') });
  more.open = false;
  size = [card.offsetWidth, card.offsetHeight];
  return true;
}
more.addEventListener('toggle', () => { // the folded frames shown or not
  size = [card.offsetWidth, card.offsetHeight];
  place(at[0], at[1]); // taller or shorter: still inside the viewport
});

/** Puts the card beside client point (x, y): right and below, else left / above, inside the viewport. */
function place(x, y) {
  at = [x, y];
  const [w, h] = size, vw = document.documentElement.clientWidth, vh = window.innerHeight;
  const left = x + GAP + w > vw - 4 ? Math.max(4, x - GAP - w) : x + GAP;
  const top = y + GAP + h > vh - 4 ? Math.max(4, vh - 4 - h) : y + GAP;
  Object.assign(card.style, { left: `${left}px`, top: `${top}px` });
}

/** The pointer is at client (x, y) over what `p` says (no element: its text). @param {import('./types').PointerView} p */
export function hoverCard(p, x, y) {
  if (pinned || (p.changed && !show(p.card, p.context))) return;
  if (!card.hidden) place(x, y);
}

/** A band was pinned at client (x, y) (`c` null: unpinned). @param {import('./types').Card | null} c */
export function pinCard(c, x, y) {
  pinned = !!c && show(c, '');
  card.classList.toggle('pinned', pinned);
  if (pinned) place(x, y); else card.hidden = true;
}

/** The pointer left the plot, or the plot changed: an unpinned card goes (`all`: a pinned one too). */
export function hideCard(all = false) {
  if (all) { pinned = false; card.classList.remove('pinned'); }
  if (!pinned) card.hidden = true;
}
