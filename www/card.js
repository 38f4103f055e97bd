// @ts-check
// The hover card (#hover-card): what the band under the pointer is, beside
// the pointer and inside the viewport (the full memory_viz text stays in
// #context under the plot). The user's frames come first; PyTorch's and
// C++ frames are folded behind one button. Which frames fold is the core's
// rule (memviz-core format.rs: fold_frames, hover_card); this module only
// lays the page view's card out. A pinned card stays where the band was pinned and takes
// the pointer (its fold can be opened); an unpinned one follows the pointer.
/** @returns {any} */
const $ = (id) => document.getElementById(id);
const card = $('hover-card');
const GAP = 14; // px between the pointer and the card
let pinned = false;
let size = null; // [w, h] of the card as last filled: read once per fill, not per move
let at = [0, 0]; // the client point it was last placed beside

function line(cls, text) {
  const d = document.createElement('div');
  d.className = cls;
  d.textContent = text;
  return d;
}

/**
 * Fills the card from the viewer's card or, where there is no element, a plain text.
 * @param {import('./types').Card | null} c
 * @param {string} text
 */
function fill(c, text) {
  card.replaceChildren();
  if (c) {
    const [first, ...rest] = c.head.split('\n');
    card.append(line('card-head', first));
    if (rest.length) card.append(line('card-notes', rest.join('\n')));
    const frames = document.createElement('div');
    frames.className = 'card-frames';
    for (const f of c.frames) frames.append(line('card-frame', f));
    card.append(frames);
    if (c.fold) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'card-fold';
      b.textContent = c.fold;
      b.setAttribute('aria-expanded', 'false');
      const more = document.createElement('div');
      more.className = 'card-folded';
      more.hidden = true;
      for (const f of c.folded) more.append(line('card-frame', f));
      b.addEventListener('click', () => {
        more.hidden = !more.hidden;
        b.setAttribute('aria-expanded', String(!more.hidden));
        size = [card.offsetWidth, card.offsetHeight];
        place(...at); // taller or shorter: still inside the viewport
      });
      card.append(b, more);
    }
    if (c.tail) card.append(line('card-notes', c.tail));
  } else if (text) {
    card.append(line('card-head', text));
  } else {
    card.hidden = true;
    return false;
  }
  card.hidden = false;
  size = [card.offsetWidth, card.offsetHeight];
  return true;
}

/** Puts the card beside client point (x, y): right and below, else left / above, always inside the viewport. */
function place(x, y) {
  at = [x, y];
  const [w, h] = size;
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  let left = x + GAP;
  if (left + w > vw - 4) left = Math.max(4, x - GAP - w);
  let top = y + GAP;
  if (top + h > vh - 4) top = Math.max(4, vh - 4 - h);
  card.style.left = `${left}px`;
  card.style.top = `${top}px`;
}

/**
 * The pointer is at client (x, y) over what `at` says (no element: its
 * text shown plainly). A pinned card stays.
 * @param {import('./types').PointerView} at
 */
export function hoverCard(at, x, y) {
  if (pinned) return;
  if (at.changed && !fill(at.card, at.context)) return;
  if (!card.hidden) place(x, y);
}

/**
 * A band was pinned at client (x, y) (`c` null: unpinned): the card stays there.
 * @param {import('./types').Card | null} c
 */
export function pinCard(c, x, y) {
  pinned = !!c && fill(c, '');
  card.classList.toggle('pinned', pinned);
  if (pinned) place(x, y);
  else card.hidden = true;
}

/** The pointer left the plot, or the plot changed: an unpinned card goes. */
export function hideCard(all = false) {
  if (all) { pinned = false; card.classList.remove('pinned'); }
  if (!pinned) card.hidden = true;
}
