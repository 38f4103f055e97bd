// @ts-check
// The diff's icicle labels (ranks.js; "Alive at"'s icicle is drawn in Rust): a frame's file basename on, cut with
// "…" to a box `w` px wide at `charW` px a character.
export function label(frame, w, charW) {
  const text = frame.slice(frame.lastIndexOf('/') + 1), fit = Math.floor((w - 6) / charW);
  return text.length > fit ? text.slice(0, Math.max(0, fit - 1)) + '…' : text;
}
