// Icicle (flame) graph of the live bytes by stack at the "Alive at" moment
// (www/moment.js): root at the top, width = bytes; the hover's text comes
// from Rust (Viewer.panel's tree_tip). Nodes parents first. draw() can start
// at any node (a zoom: its subtree, full width) and shows at most MAX_ROWS
// levels. moment.js imports draw, hit and warm; ranks.js label.
const ROW = 18;
const FONT = '11px monospace';
const MAX_ROWS = 28;
let boxes = [];

const colors = new Map(); // frame -> color: hashing long frame strings per draw is slow
function color(frame) {
  const c = colors.get(frame);
  if (c) return c;
  if (colors.size > 50000) colors.clear();
  // Of the frame's last 32 characters (its line and function): the first
  // icicle of the 2M-event file hashed 1,784 whole frames in 5-6 ms.
  let h = 0;
  for (let i = Math.max(0, frame.length - 32); i < frame.length; i++) h = (h * 31 + frame.charCodeAt(i)) >>> 0;
  const css = `hsl(${20 + (h % 40)}, ${60 + (h >> 8) % 30}%, ${55 + (h >> 16) % 20}%)`;
  colors.set(frame, css);
  return css;
}

/** Readies `canvas`'s 2D context and the labels' font before the first
 * draw, when the page is idle: the first getContext and measureText took
 * 2-8 ms each, in the frame that first showed a panel. */
export function warm(canvas) {
  const ctx = canvas.getContext('2d');
  ctx.font = FONT;
  ctx.measureText('M');
}

/** Draws `tree` from node `zoom` (its id; the whole tree when absent). */
export function draw(canvas, tree, zoom = null) {
  boxes = [];
  const top = tree.find((n) => n.parent === 0xffffffff) || tree[0];
  const root = (zoom != null && tree.find((n) => n.id === zoom)) || top;
  if (!root || !root.bytes) { canvas.hidden = true; return; }
  canvas.hidden = false;
  const dpr = window.devicePixelRatio || 1;
  const W = canvas.clientWidth;
  // Levels under the root that hold any node (parents come first, so a
  // node is in the subtree when its parent is).
  const inside = new Set([root.id]);
  let depth = 1;
  for (const n of tree) {
    if (n.depth > root.depth && inside.has(n.parent)) {
      inside.add(n.id);
      depth = Math.max(depth, n.depth - root.depth + 1);
    }
  }
  const H = Math.min(depth, MAX_ROWS) * ROW;
  canvas.style.height = H + 'px';
  canvas.width = Math.round(W * dpr);
  canvas.height = Math.round(H * dpr);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, W, H);
  ctx.font = FONT;
  ctx.textBaseline = 'middle';
  const charW = ctx.measureText('M').width || 6.6;
  const scale = W / root.bytes;
  const pos = new Map([[root.id, { x: 0, next: 0 }]]);
  // Boxes by color, then one path a color, then the labels: a fillStyle
  // per box cost ~5 µs (4,800 boxes: 25-35 ms on the 2M-event file). Boxes
  // never overlap, and a label is cut to its box, so the order is free.
  const byColor = new Map();
  const labels = [];
  for (const n of tree) {
    let x;
    if (n.id === root.id) x = 0;
    else {
      const p = pos.get(n.parent);
      if (!p) continue;
      x = p.next;
      p.next += n.bytes * scale;
    }
    pos.set(n.id, { x, next: x });
    const w = n.bytes * scale;
    const y = (n.depth - root.depth) * ROW;
    if (y >= H) continue;
    boxes.push({ x, y, w, n, share: n.bytes / root.bytes });
    if (w < 0.5) continue;
    const c = n.id === top.id ? '#bbb' : color(n.frame);
    let rects = byColor.get(c);
    if (!rects) byColor.set(c, (rects = []));
    rects.push(x, y, Math.max(w - 1, 0.5));
    if (w > 30) labels.push(n, x, y, w);
  }
  for (const [c, rects] of byColor) {
    ctx.fillStyle = c;
    ctx.beginPath();
    for (let i = 0; i < rects.length; i += 3) ctx.rect(rects[i], rects[i + 1], rects[i + 2], ROW - 1);
    ctx.fill();
  }
  // Cut to the box (monospace: a fixed advance) instead of clipping:
  // save/clip/restore per box cost more than the rest of the drawing.
  ctx.fillStyle = '#000';
  for (let i = 0; i < labels.length; i += 4) {
    const [n, x, y, w] = labels.slice(i, i + 4);
    ctx.fillText(label(n.frame, w, charW), x + 3, y + ROW / 2);
  }
}

/** A frame's label for a box `w` px wide: its file's basename on, cut with
 * "…" to what fits at `charW` px a character (also the diff's icicle). */
export function label(frame, w, charW) {
  const text = frame.slice(frame.lastIndexOf('/') + 1);
  const fit = Math.floor((w - 6) / charW);
  return text.length > fit ? text.slice(0, Math.max(0, fit - 1)) + '…' : text;
}

export function hit(x, y) {
  return boxes.find((b) => x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + ROW) || null;
}
