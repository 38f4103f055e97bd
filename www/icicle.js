// Icicle (flame) graph of the live bytes by stack at the "Alive at" moment
// (www/moment.js): root at the top, width = bytes; hover shows the frame,
// bytes, count and share. Nodes come from MomentView.tree (parents first).
// An ES module: moment.js imports draw, hit and text.
const ROW = 18;
const GiB = 1024 ** 3, MiB = 1024 ** 2, KiB = 1024;
const fmt = (b) => b >= GiB ? (b / GiB).toFixed(2) + ' GiB' : b >= MiB ? (b / MiB).toFixed(1) + ' MiB'
  : b >= KiB ? (b / KiB).toFixed(1) + ' KiB' : b + ' B';
let boxes = [];

function color(frame) {
  let h = 0;
  for (let i = 0; i < frame.length; i++) h = (h * 31 + frame.charCodeAt(i)) >>> 0;
  return `hsl(${20 + (h % 40)}, ${60 + (h >> 8) % 30}%, ${55 + (h >> 16) % 20}%)`;
}

export function draw(canvas, tree) {
  boxes = [];
  const root = tree.find((n) => n.parent === 0xffffffff) || tree[0];
  if (!root || !root.bytes) { canvas.hidden = true; return; }
  canvas.hidden = false;
  const dpr = window.devicePixelRatio || 1;
  const W = canvas.clientWidth;
  const depth = tree.reduce((d, n) => Math.max(d, n.depth), 0) - root.depth + 1;
  const H = depth * ROW;
  canvas.style.height = H + 'px';
  canvas.width = Math.round(W * dpr);
  canvas.height = Math.round(H * dpr);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, W, H);
  ctx.font = '11px monospace';
  ctx.textBaseline = 'middle';
  const scale = W / root.bytes;
  const pos = new Map([[root.id, { x: 0, next: 0 }]]);
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
    boxes.push({ x, y, w, n, share: n.bytes / root.bytes });
    if (w < 0.5) continue;
    ctx.fillStyle = n.id === root.id ? '#bbb' : color(n.frame);
    ctx.fillRect(x, y, Math.max(w - 1, 0.5), ROW - 1);
    if (w > 30) {
      ctx.fillStyle = '#000';
      ctx.save();
      ctx.beginPath();
      ctx.rect(x, y, w - 1, ROW - 1);
      ctx.clip();
      ctx.fillText(n.frame.replace(/^.*\//, ''), x + 3, y + ROW / 2);
      ctx.restore();
    }
  }
}

export function hit(x, y) {
  return boxes.find((b) => x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + ROW) || null;
}
export const text = (b) => `${b.n.frame}\n${fmt(b.n.bytes)} · ${b.n.count} allocations · ${(100 * b.share).toFixed(1)}%`;

